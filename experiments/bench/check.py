"""``bench --check``: choose the mode, run the paired timings, turn them into verdict rows.

Modes, printed with every result:

- ``paired``: the current tree against REF's tree (``--against REF``, or by
  default the merge-base with the main branch, HEAD~1 when that is HEAD
  itself, else the baseline's recorded commit). Nothing recorded on another
  machine enters the speed verdict.
- ``reference cases``: no git history (an sdist, a tarball, ``--no-history``).
  Each case is paired with a fixed reference implementation of the same kind
  of work (`suite.reference_for`), and the ratio is compared with the ratio
  recorded in the baseline by ``--update-baseline``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .abtest import ABResult, Side, run_ab
from packbench.experiments.gate.status import Quality, Speed

from .compare import CheckRow, judge_quality, judge_speed
from .ref_build import build_extensions, kernels_note
from .revisions import RevisionError, default_ref, export_tree, git_toplevel, repo_root, resolve
from .stats import Paired, paired
from .suite import reference_for

__all__ = ["CheckReport", "run_check", "run_project_check", "project_ref", "source_root", "measure_reference_ratios",
           "scope_note"]

PAIRED = "paired"
REFERENCE_CASES = "reference cases"
# Cases left "unsure" (the interval straddles the tolerance) are timed again, as long as the first
# pass each time, at most this many times: with 6 pairs the interval is their min and max, so one
# disturbed pair hides a real 2x slowdown; 12 pairs drop the two most extreme at each end.
FOLLOW_UPS = 2


@dataclass
class CheckReport:
    """What ran and what it found.

    Attributes:
        mode: PAIRED or REFERENCE_CASES.
        description: One line naming the mode and REF.
        rows: One verdict per case of the current tree.
        result: The raw timings and figures.
    """

    mode: str
    description: str
    rows: list[CheckRow]
    result: ABResult

    @property
    def failed(self) -> list[CheckRow]:
        """Rows that are regressions."""
        return [r for r in self.rows if r.failed]


def source_root() -> Path | None:
    """The source tree of the imported packbench when it is a checkout (pyproject.toml beside it)."""
    import packbench

    root = Path(packbench.__file__).resolve().parents[1]
    return root if (root / "pyproject.toml").is_file() and (root / "experiments" / "bench").is_dir() else None


def scope_note(workdir: Path) -> str | None:
    """What ``bench --check`` times, said when run from outside the packbench checkout it benchmarks.

    ``bench --check`` is packbench's own suite against packbench's own history, wherever it runs;
    a user's code is gated by ``packbench gate`` (docs/ci-gate.md). None inside the checkout.
    """
    root = source_root()
    here = git_toplevel(workdir) or workdir.resolve()
    if root is not None and here == root.resolve():
        return None
    where = f"its checkout at {root}" if root is not None else "the installed package"
    return (f"note: 'packbench bench --check' benchmarks packbench itself ({where}), not the project in "
            f"{workdir}; to gate your own strategy use 'packbench gate CONFIG --baseline DIR --against REF' "
            f"(see docs/ci-gate.md)")


def _ratio_map(baseline: dict[str, Any] | None) -> dict[str, float]:
    cases = (baseline or {}).get("cases", {})
    return {n: c["ratio_to_reference"] for n, c in cases.items() if c.get("ratio_to_reference")}


def run_check(*, repo: Path | None = None, against: str | None = None, baseline: dict[str, Any] | None = None,
              no_history: bool = False, cases: Sequence[str] | None = None, full: bool = False,
              rounds: int = 2, pairs: int = 3, tolerance: float = 1.3, floor: float = 0.001,
              confidence: float = 0.95, suite_file: Path | None = None,
              progress: Callable[[str], None] | None = None, real_at_median: bool = False,
              first_round: int = 0) -> CheckReport:
    """Run the check.

    Args:
        repo: The source tree under test (default: the imported packbench's checkout).
        against: REF (a git revision); None picks the default or falls back to reference cases.
        baseline: The committed baseline document (quality figures, no-history ratios).
        no_history: Use the reference-cases mode even inside a repository.
        cases: Case names (None: the whole quick or full suite).
        full: The full suite.
        rounds: Fresh process pairs.
        pairs: Pairs per case and round.
        tolerance: Slowdown factor that fails (the interval must lie above it).
        floor: Seconds of slowdown (median per-pair difference) below which nothing fails.
        confidence: Coverage of the ratio's interval.
        suite_file: A Python file with ``build_suite(quick)`` instead of the tree's suite.
        progress: Called with a line per step.
        real_at_median: The user gate's speed rule (see `compare.judge_speed`).
        first_round: Passed to `run_ab` (a confirmation's fresh processes).

    Raises:
        RevisionError: `against` given but not found, or no git checkout.
        ValueError: Bad tolerance or floor, or reference-cases mode without recorded ratios.
    """
    if tolerance < 1.0 or floor < 0:
        raise ValueError(f"tolerance must be >= 1 and floor >= 0, got {tolerance} and {floor}")
    root = repo if repo is not None else source_root()
    git_repo = repo_root(root) if root is not None else None
    ref = None
    if against is not None:
        if git_repo is None:
            raise RevisionError(f"--against {against} needs a git checkout of packbench; none at {root}")
        ref = resolve(git_repo, against), f"--against {against}"
    elif not no_history and git_repo is not None:
        ref = default_ref(git_repo, (baseline or {}).get("commit"))
    kw = dict(cases=cases, rounds=rounds, pairs=pairs, full=full, suite_file=suite_file, progress=progress,
              first_round=first_round)
    if ref is not None:
        sha, why = ref
        with tempfile.TemporaryDirectory(prefix="packbench-ref-") as tmp:
            tree = export_tree(git_repo, sha, Path(tmp) / "tree")
            # REF's own extensions: an exported tree has only sources, and its fallback against our C
            # would time two implementations instead of two revisions.
            build = build_extensions(tree, sha)
            if progress is not None:
                progress(build.note)
            sides = Side("current tree", root), Side(f"REF {sha[:10]}", tree)
            res, extra = _timed(sides, kw, {}, (tolerance, floor, confidence, real_at_median, pairs))
        desc = (f"paired A/B: current tree vs REF {sha[:10]} ({why}), {rounds} rounds x {pairs} pairs"
                f"{_passes(extra)}; {kernels_note(res.kernels_a, res.kernels_b, build)}")
        return CheckReport(PAIRED, desc, _rows(res, baseline, (tolerance, floor, confidence, real_at_median, pairs), {}), res)
    ratios = _ratio_map(baseline)
    if not ratios:
        raise ValueError("no git history to compare with, and the baseline records no reference ratios: "
                         "run 'packbench bench --update-baseline' on a known-good tree")
    sides = Side("current tree", root), Side("reference cases", root, reference_for)
    res, extra = _timed(sides, kw, ratios, (tolerance, floor, confidence, real_at_median, pairs))
    desc = (f"no git history: each case paired with its fixed reference case, ratio compared with the "
            f"baseline's (recorded at {(baseline or {}).get('commit') or 'unknown commit'}), "
            f"{rounds} rounds x {pairs} pairs{_passes(extra)}")
    return CheckReport(REFERENCE_CASES, desc, _rows(res, baseline, (tolerance, floor, confidence, real_at_median, pairs), ratios), res)


def project_ref(workdir: Path, against: str) -> tuple[Path, str]:
    """(top of the git repository holding `workdir`, REF's commit hash).

    Raises:
        RevisionError: `workdir` is in no git repository, or REF names no commit of it.
    """
    top = git_toplevel(workdir)
    if top is None:
        raise RevisionError(f"--against {against} needs the working directory ({workdir}) inside a git "
                            f"repository: REF is a revision of your project")
    return top, resolve(top, against)


def run_project_check(workdir: Path, against: str, suite_file: Path, *, rounds: int = 2, pairs: int = 3,
                      tolerance: float = 1.3, floor: float = 0.001, confidence: float = 0.95,
                      progress: Callable[[str], None] | None = None, real_at_median: bool = False,
                      cases: Sequence[str] | None = None, first_round: int = 0) -> CheckReport:
    """A user's project (the git repository holding `workdir`) at REF against its working tree.

    Both sides run the installed packbench; what differs is the project's code
    and files: side A works in `workdir`, side B in the same directory of REF's
    exported tree (see `Side.workdir`). `cases` and `first_round` are `run_ab`'s.

    Raises:
        RevisionError: `workdir` is in no git repository, or REF names no commit of it.
        ValueError: Bad tolerance or floor.
    """
    if tolerance < 1.0 or floor < 0:
        raise ValueError(f"tolerance must be >= 1 and floor >= 0, got {tolerance} and {floor}")
    workdir = workdir.resolve()
    top, sha = project_ref(workdir, against)
    with tempfile.TemporaryDirectory(prefix="packbench-ref-") as tmp:
        tree = export_tree(top, sha, Path(tmp) / "tree")
        sides = (Side("working tree", None, workdir=workdir),
                 Side(f"REF {sha[:10]}", None, workdir=tree / workdir.relative_to(top)))
        kw = dict(cases=cases, rounds=rounds, pairs=pairs, suite_file=suite_file, progress=progress,
                  first_round=first_round)
        res, extra = _timed(sides, kw, {}, (tolerance, floor, confidence, real_at_median, pairs))
    desc = (f"paired A/B: your project's working tree vs REF {sha[:10]} (--against {against}), the installed "
            f"packbench on both sides, {rounds} rounds x {pairs} pairs{_passes(extra)}")
    return CheckReport(PAIRED, desc, _rows(res, None, (tolerance, floor, confidence, real_at_median, pairs), {}), res)


# (tolerance, floor, confidence, real_at_median, pairs per round): how a case's pairs are judged.
_Judge = tuple[float, float, float, bool, int]


def _round_medians(a: list[float], b: list[float], per_round: int) -> list[float]:
    """The median ratio of each round (fresh process pair): the pairs come round by round."""
    import statistics

    ratios = [x / y for x, y in zip(a, b)]
    return [statistics.median(ratios[k:k + per_round]) for k in range(0, len(ratios), per_round)]


def _speed(res: ABResult, name: str, ratios: dict[str, float], judge: _Judge) -> tuple[Speed, str, Paired | None]:
    """(speed status, sentence, paired summary or None) of one case; NOT_TIMED where it has no pairs to judge."""
    if name not in res.a or (ratios and name not in ratios):
        return Speed.NOT_TIMED, "", None
    scale = ratios.get(name, 1.0)
    tolerance, floor, confidence, real_at_median, per_round = judge
    b = [t * scale for t in res.b[name]]
    p = paired(res.a[name], b, confidence)
    speed, sentence = judge_speed(p, tolerance, floor, real_at_median=real_at_median)
    if speed == Speed.SLOWER and real_at_median:
        # A process can be slow for its whole life (where it was placed, what shares its core):
        # a real slowdown shows in (nearly) every fresh pair of processes, such a bias in one.
        rounds = _round_medians(res.a[name], b, per_round)
        if sum(r <= 1.0 for r in rounds) > (len(rounds) - 1) // 3:
            speed = Speed.UNSURE
            sentence = (f"maybe slower, not in every round of fresh processes (round medians "
                        f"{', '.join(f'{r:.2f}' for r in rounds)}): {sentence.removeprefix('slower: ')}")
    return speed, sentence, p


def _timed(sides: tuple[Side, Side], kw: dict[str, Any], ratios: dict[str, float],
           judge: _Judge) -> tuple[ABResult, int]:
    """`run_ab` on the two sides, then the cases left unsure timed again with their pairs added.

    Returns the result and the follow-up passes made (at most `FOLLOW_UPS`).
    """
    res = run_ab(*sides, **kw)
    for done in range(FOLLOW_UPS):
        unsure = [n for n in res.a if _speed(res, n, ratios, judge)[0] == Speed.UNSURE]
        if not unsure:
            return res, done
        more = run_ab(*sides, **{**kw, "cases": unsure})
        for name in unsure:
            if name in more.a and name in more.b:
                res.a[name] += more.a[name]
                res.b[name] += more.b[name]
    return res, FOLLOW_UPS


def _passes(extra: int) -> str:
    return f", {extra} more pass{'es' if extra != 1 else ''} over the unsure cases" if extra else ""


def _rows(res: ABResult, baseline: dict[str, Any] | None, judge: _Judge,
          ratios: dict[str, float]) -> list[CheckRow]:
    base_cases = (baseline or {}).get("cases", {})
    rows = []
    names = list(res.quality_a) + [n for n in res.errors_a if n not in res.quality_a]
    for name in names:
        notes: list[str] = []
        p = None
        if name in res.errors_a:
            speed, quality = Speed.ERROR, Quality.ERROR
            notes.append(f"current tree: {res.errors_a[name]}")
        else:
            if name in res.errors_b:
                notes.append(f"REF: {res.errors_b[name]}")
            speed, sentence, p = _speed(res, name, ratios, judge)
            if speed not in (Speed.OK, Speed.NOT_TIMED):
                notes.insert(0, sentence)
            ref_q = None if ratios else res.quality_b.get(name)
            quality, why = judge_quality(res.quality_a[name], ref_q, base_cases.get(name, {}).get("quality"))
            if name in res.unstable:
                quality, why = Quality.NONDETERMINISTIC, ["quality figures differ between fresh processes"]
            if quality != Quality.NEW or base_cases:
                notes += why
        rows.append(CheckRow(name, speed, quality, p, tuple(notes)))
    return rows


def measure_reference_ratios(root: Path | None, full: bool = False, cases: Sequence[str] | None = None,
                             rounds: int = 2, pairs: int = 3, progress: Callable[[str], None] | None = None) -> tuple[ABResult, dict[str, tuple[str, float]]]:
    """Quality figures and (reference case, median ratio) of every case, for ``--update-baseline``."""
    res = run_ab(Side("current tree", root), Side("reference cases", root, reference_for),
                 cases=cases, rounds=rounds, pairs=pairs, full=full, skip_references=False, progress=progress)
    ratios = {}
    for name in res.a:
        ref_name = reference_for(name)
        if ref_name is not None:
            ratios[name] = (ref_name, paired(res.a[name], res.b[name]).ratio)
    return res, ratios
