"""The gate's history as HTML: a section for ``report.html`` and a page of its own, both self-contained.

`packbench report --history DIR` writes ``DIR/history.html``; given a results
directory too (``packbench report RESULTS --history DIR``), the same section is
added to ``RESULTS/report.html``. Each timed cell gets a small inline SVG of its
stage's CPU ms per call over the gate runs (failing runs marked red), each
cell's mean score ratio gets one too, and a table lists the runs (commit, date,
machine, regressions). Nothing is fetched and no script runs: plain HTML and
SVG, drawn here from the records.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

__all__ = ["history_section", "history_page", "with_history", "SECTION_ID"]

SECTION_ID = "gate-history"
_W, _H, _L, _R, _T, _B = 360, 150, 56, 10, 10, 26


def _commit(rec: dict[str, Any]) -> str:
    return (rec.get("commit") or "no git")[:10] + ("+" if rec.get("dirty") else "")


def _series(records: Sequence[dict[str, Any]], section: str, figure: str) -> dict[str, list[tuple[int, float, bool]]]:
    """cell -> [(run index, value, failed in that run)] for runs that recorded a finite `figure`."""
    out: dict[str, list[tuple[int, float, bool]]] = {}
    for k, rec in enumerate(records):
        failed = set(rec.get("regressions") or ())
        for cell, figs in (rec.get(section) or {}).items():
            value = figs.get(figure) if isinstance(figs, dict) else None
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                name = cell.removeprefix("speed: ")
                # The gate names a failed speed cell "speed: <cell>", a failed quality cell "<cell>".
                bad = (f"speed: {name}" if section == "speed" else name) in failed
                out.setdefault(name, []).append((k, float(value), bad))
    return dict(sorted(out.items()))


def _svg(points: list[tuple[int, float, bool]], runs: int, ylabel: str, from_zero: bool) -> str:
    ys = [v for _, v, _ in points]
    lo, hi = (0.0 if from_zero else min(ys)), max(ys)
    if hi - lo <= 1e-12 * max(1.0, abs(hi)):
        lo, hi = lo - (0.5 if lo == 0 else abs(lo) * 0.01), hi + (0.5 if hi == 0 else abs(hi) * 0.01)
    if from_zero:
        lo = min(lo, 0.0)
    x = lambda k: _L + (k / max(runs - 1, 1)) * (_W - _L - _R)  # noqa: E731
    y = lambda v: _T + (hi - v) / (hi - lo) * (_H - _T - _B)  # noqa: E731
    parts = [f'<svg width="{_W}" height="{_H}" viewBox="0 0 {_W} {_H}" role="img" aria-label="{html.escape(ylabel)}">',
             f'<rect x="{_L}" y="{_T}" width="{_W - _L - _R}" height="{_H - _T - _B}" fill="none" stroke="#999"/>']
    for v in (lo, (lo + hi) / 2, hi):
        parts.append(f'<text x="{_L - 4}" y="{y(v) + 3:.1f}" font-size="10" text-anchor="end">{v:.4g}</text>')
    parts.append(f'<text x="{(_L + _W - _R) / 2}" y="{_H - 6}" font-size="10" text-anchor="middle">gate run '
                 f'(oldest left; red: failed)</text>')
    path = " ".join(f"{x(k):.1f},{y(v):.1f}" for k, v, _ in points)
    parts.append(f'<polyline points="{path}" fill="none" stroke="#1f77b4" stroke-width="1.4"/>')
    for k, v, bad in points:
        parts.append(f'<circle cx="{x(k):.1f}" cy="{y(v):.1f}" r="3.5" fill="{"#d62728" if bad else "#1f77b4"}">'
                     f'<title>run {k + 1}: {v:.6g}</title></circle>')
    return "".join(parts) + "</svg>"


def _panels(records: Sequence[dict[str, Any]], section: str, figure: str, ylabel: str, from_zero: bool) -> str:
    series = _series(records, section, figure)
    if not series:
        return f'<p class="muted">No gate run in the history recorded {html.escape(ylabel)}.</p>'
    out = ['<div class="hist-panels" style="display:flex;flex-wrap:wrap;gap:12px">']
    for cell, points in series.items():
        out.append(f'<div class="hist-panel" data-cell="{html.escape(cell)}" style="border:1px solid #ddd;padding:4px">'
                   f'<h4 style="margin:2px 4px;font-size:12px">{html.escape(cell)}</h4>'
                   f'<p style="margin:0 4px;font-size:11px;color:#555">{html.escape(ylabel)}</p>'
                   f'{_svg(points, len(records), ylabel, from_zero)}</div>')
    return "".join(out) + "</div>"


def _runs_table(records: Sequence[dict[str, Any]]) -> str:
    rows = ["<table><tr><th>run</th><th>commit</th><th>date (UTC)</th><th>machine</th><th>against</th>"
            "<th>regressions</th></tr>"]
    for k, rec in enumerate(records):
        machine = rec.get("machine") if isinstance(rec.get("machine"), dict) else {}
        where = f"{machine.get('node', '?')} ({machine.get('cpus', '?')} CPUs, Python {machine.get('python', '?')})"
        bad = rec.get("regressions") or []
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in (
            k + 1, _commit(rec), rec.get("date", ""), where, rec.get("against") or "-",
            "; ".join(map(str, bad)) or "none")) + "</tr>")
    return "".join(rows) + "</table>"


def history_section(records: Sequence[dict[str, Any]], skipped: int = 0) -> str:
    """The history as one HTML ``<section>`` (id `SECTION_ID`), records oldest first."""
    note = f" {skipped} unreadable line(s) of the store were skipped." if skipped else ""
    return (f'<section id="{SECTION_ID}"><h2>Gate history</h2>'
            f'<p class="muted">{len(records)} run(s) of <code>packbench gate --history</code>, oldest first.{note}</p>'
            f"<h3>Speed: CPU ms per call of the timed stage (this tree's side)</h3>"
            f"{_panels(records, 'speed', 'ms_now', 'CPU ms per call', True)}"
            f"<h3>Quality: mean score ratio</h3>{_panels(records, 'cells', 'ratio_mean', 'mean score ratio', False)}"
            f"<h3>Runs</h3>{_runs_table(records)}</section>")


def history_page(records: Sequence[dict[str, Any]], skipped: int = 0) -> str:
    """A whole page holding `history_section` (``history.html``)."""
    style = ("body{font:14px/1.4 system-ui,sans-serif;margin:1.2em 2em;color:#222}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:3px 7px;text-align:left}th{background:#f3f3f3}.muted{color:#777}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>packbench gate history</title>'
            f"<style>{style}</style></head><body><h1>packbench gate history</h1>"
            f"{history_section(records, skipped)}</body></html>\n")


def with_history(page: str, section: str) -> str:
    """`page` (``report.html``) with `section` in place of an earlier history section, else before ``</body>``.

    Raises:
        ValueError: The page has no ``</body>`` to insert before.
    """
    start = page.find(f'<section id="{SECTION_ID}">')
    if start >= 0:
        end = page.find("</section>", start)
        return page[:start] + section + page[end + len("</section>"):]
    at = page.rfind("</body>")
    if at < 0:
        raise ValueError("report.html has no </body>: not a page written by 'packbench report'")
    return page[:at] + section + "\n" + page[at:]
