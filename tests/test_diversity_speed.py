"""The summary of `diversity_speed`: per-round ratios of summed CPU, their spread and the verdict.

Made-up seconds only (nothing is timed): the median is of the per-round ratios (not the ratio of
medians), the interval brackets it, and the verdict follows where the interval lies.
"""

from __future__ import annotations

import numpy as np
import pytest

from packbench.experiments.bench.diversity_speed import ratio_summary


def test_ratio_is_median_of_per_round_sums():
    # Round ratios 2/2 = 1.0, 3/2 = 1.5, 8/2 = 4.0: median 1.5. The ratio of the side medians would be
    # 1.5 too here, so a second case separates them: rounds (1, 10) vs (1, 1) and (10, 1) vs (1, 1).
    ours = np.array([[1.0, 1.0], [2.0, 1.0], [4.0, 4.0]])
    theirs = np.ones((3, 2))
    s = ratio_summary(ours, theirs, limit=1.2)
    assert s["ratio"] == pytest.approx(1.5)
    assert s["ours"] == pytest.approx(1.5) and s["theirs"] == pytest.approx(1.0)
    paired = ratio_summary(np.array([[1.0, 10.0], [10.0, 1.0], [1.0, 1.0]]),
                           np.array([[1.0, 10.0], [10.0, 1.0], [10.0, 10.0]]), limit=1.2)
    assert paired["ratio"] == pytest.approx(1.0)  # a slow machine in a round slows both sides alike


@pytest.mark.parametrize("level, verdict", [(0.8, "ok"), (1.6, "OVER")])
def test_verdict_follows_the_interval(level, verdict):
    rng = np.random.default_rng(3)
    theirs = rng.uniform(1.0, 2.0, size=(41, 5))
    ours = theirs * level * rng.uniform(0.97, 1.03, size=(41, 1))
    s = ratio_summary(ours, theirs, limit=1.2)
    assert s["lo"] <= s["ratio"] <= s["hi"] and s["q1"] <= s["ratio"] <= s["q3"]
    assert s["verdict"] == verdict


def test_unsure_when_the_interval_straddles_the_limit():
    ratios = np.array([0.9, 1.5] * 10 + [1.2])
    s = ratio_summary(ratios[:, None], np.ones((len(ratios), 1)), limit=1.2)
    assert s["lo"] < 1.2 < s["hi"] and s["verdict"] == "unsure"
