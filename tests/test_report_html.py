"""report.html in a real browser: headless Chromium driven by playwright, from a file URL, offline.

Skips (saying why) only where playwright or a Chromium binary is missing; `.ci/run` installs both
(Debian's ``chromium`` package and ``pip install playwright``, no browser download).
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest

from packbench.experiments.report import write_report

from test_decision import many_cells

CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium") or "", shutil.which("chromium-browser") or "")
                 if p and Path(p).is_file()), None)


def test_report_html_is_self_contained_with_the_ship_block_and_every_cell(tmp_path):
    write_report(tmp_path, many_cells(random.Random(1)), plots=[])
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)  # nothing fetched: no server, no network
    data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert [c["id"] for c in data["cells"]] == ["pisinger 5% of tokens", "pisinger 20% of tokens",
                                               "pisinger 50% of tokens", "retrieval 512 tokens"]
    fast = next(s for s in data["ship"] if s["domain"] == "knapsack" and s["latency"] == "≤ 0.1 ms")
    assert fast["strategy"] == "greedy" and fast["held"] == "3 of 3 cells"
    recency = next(p for p in data["cells"][0]["points"] if p["s"] == "recency")
    assert recency["grey"] == "meant for chat" and not recency["pick"]  # shown, greyed, with the reason


@pytest.fixture
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    if CHROMIUM is None:
        pytest.skip("no Chromium binary found (apt-get install chromium); the page itself is tested above")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


def test_filters_change_the_view_and_hover_shows_n_and_the_interval(tmp_path, browser):
    write_report(tmp_path, many_cells(random.Random(1)), plots=[])
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.route("**/*", lambda route: route.abort() if not route.request.url.startswith("file:") else route.continue_())
    page.goto((tmp_path / "report.html").as_uri())
    assert page.locator("#ship table.ship").count() == 2  # knapsack and retrieval
    assert "greedy" in page.locator("#ship table.ship").first.inner_text()
    assert page.locator(".panel").count() == 4
    page.select_option("#f-source", "retrieval")
    assert page.locator(".panel").count() == 1
    assert page.locator(".panel h4").inner_text().startswith("retrieval 512 tokens")
    page.select_option("#f-source", "all")
    page.select_option("#f-budget", "20% of tokens")
    assert page.locator(".panel").count() == 1
    point = page.locator('.panel circle.pt[data-strategy="greedy"]')
    point.hover()
    tip = page.locator("#tooltip")
    assert tip.is_visible()
    text = tip.inner_text()
    assert "n=8 instances" in text and "vs best: -0.028 [" in text and "(95%)" in text
    grey = page.locator('.panel circle.pt[data-strategy="recency"]')
    assert grey.get_attribute("fill") == "#c8c8c8"
    grey.hover()
    assert "not compared: meant for chat" in tip.inner_text()
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 5000
