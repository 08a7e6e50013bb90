"""``report.html``: the decision to explore in a browser, one self-contained file (inline data, JS and SVG).

The page holds the "ship this" block and, per cell, a view of every strategy
at (median CPU time per call on a log axis, mean of the cell's first quality
metric on an axis zoomed to the range the decision is made in), the tied for
best ringed, the pick marked, strategies outside the source's domain grey.
Filters for source, budget, dedupe and order redraw the view; hovering a
point shows its n, mean and paired interval. Nothing is fetched: no server,
no network.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

import numpy as np

from .decision import Decision, class_text, metric_name
from .frame import budget_text, measured, reference_ms, strategy_parameters
from .html_page import PAGE
from .ship import ShipLine, cell_text, ship_settings

__all__ = ["report_html"]


def _colour(k: int) -> str:
    palette = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
               "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354")
    return palette[k % len(palette)]


def _points(df, d: Decision) -> list[dict]:
    """Per strategy x order of the cell: the mean first metric and median CPU ms (display only)."""
    col = d.metrics[0] if d.metrics else "score_ratio"
    ok = measured(df)
    nd = d.near_dup
    part = ok[(ok["source"] == d.source) & (ok["budget_key"] == d.budget)
              & ((ok["near_dup_key"] == nd) if nd is not None else True)]
    part = part.sort_values("run_id", kind="stable")  # the same sums in any row order
    part = part.assign(_cpu=reference_ms(part))  # the unit the latency classes use
    cands = {c.strategy: c for c in d.candidates}
    grey = dict(d.out_of_domain) | dict(d.excluded)
    out = []
    for (choice, order), g in part.groupby(["choice", "order_choice"], sort=True):
        if col not in g or g[col].isna().all():
            continue
        c = cands.get(choice)
        iv = d.versus.get((choice, col)) if c is not None else None
        out.append({"s": choice, "o": order, "q": round(float(g[col].mean()), 6),
                    "cpu": round(max(float(np.median(g["_cpu"])), 1e-4), 6),
                    "eff": None if g["order_efficiency"].isna().all() else round(float(g["order_efficiency"].mean()), 4),
                    "n": int(g["_cpu"].notna().sum()), "cls": class_text(c.latency) if c else "",
                    "iv": None if iv is None else [round(iv.mean, 4), round(iv.low, 4), round(iv.high, 4)],
                    "tied": choice in d.tied, "pick": d.pick is not None and d.pick.strategy == choice,
                    "grey": grey.get(choice)})
    return out


def _cell(df, d: Decision) -> dict:
    return {"id": cell_text(d), "source": d.source, "budget": budget_text(d.budget),
            "dedupe": "as configured" if d.near_dup is None else ("off" if d.near_dup == "off" else d.near_dup),
            "n": d.n, "metric": metric_name(d.metrics[0]) if d.metrics else "quality",
            "pick": d.pick.strategy if d.pick else None, "why": d.why, "tied": list(d.tied),
            "points": _points(df, d)}


def _ship(df, lines: Sequence[ShipLine], cells: Sequence[Decision]) -> list[dict]:
    params = strategy_parameters(df) if not df.empty else {}
    out = []
    for ln in lines:
        dedupe, order = ship_settings(df, ln, cells) if ln.strategy else ("", "")
        regret = None if ln.regret is None else ("none" if ln.regret[0] <= 0 else
                                                 f"{ln.regret[0]:.3f} {ln.regret[1]} ({ln.regret[2]})")
        out.append({"domain": ln.domain, "latency": class_text(ln.latency), "strategy": ln.strategy,
                    "params": params.get(ln.strategy, "") if ln.strategy else "",
                    "dedupe": dedupe, "order": order,
                    "held": f"{ln.held} of {ln.cells} cells", "regret": regret or "",
                    "losses": "; ".join(ln.losses) or "none"})
    return out


def report_html(name: str, df, cells: Sequence[Decision], lines: Sequence[ShipLine]) -> str:
    """The page's text.

    Args:
        name: The experiment's name (the title).
        df: The report frame.
        cells: The decisions.
        lines: The ship-this lines.
    """
    shown = [d for d in cells if d.metrics or d.out_of_domain]
    labels = sorted({p["s"] for d in shown for p in _points(df, d)})
    data = {"title": f"{name}: which strategy to ship", "ship": _ship(df, lines, cells),
            "cells": [_cell(df, d) for d in shown], "colours": {s: _colour(k) for k, s in enumerate(labels)}}
    # "</" inside a script would end it early; JSON allows the escaped slash.
    payload = json.dumps(data, sort_keys=True, ensure_ascii=False).replace("</", "<\\/")
    return PAGE.replace("__TITLE__", html.escape(data["title"])).replace("__DATA__", payload)
