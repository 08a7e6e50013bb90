"""The page template of ``report.html``: inline CSS and JS drawing plain SVG from the embedded data."""

from __future__ import annotations

__all__ = ["PAGE"]

PAGE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.2em 2em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.4em}h3{font-size:1em;margin:.8em 0 .3em}
table{border-collapse:collapse;margin-bottom:.6em}td,th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3}.filters label{margin-right:1.2em}.filters select{margin-left:.3em}
#panels{display:flex;flex-wrap:wrap;gap:12px}.panel{border:1px solid #ddd;padding:4px}
.panel h4{margin:2px 4px;font-size:12px;font-weight:600}.panel p{margin:0 4px 4px;font-size:11px;color:#555;max-width:380px}
#tooltip{position:fixed;pointer-events:none;background:#fff;border:1px solid #888;padding:5px 8px;font-size:12px;
white-space:pre;display:none;box-shadow:0 1px 4px rgba(0,0,0,.2)}
.legend span{display:inline-block;margin-right:1em;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;
border-radius:5px;margin-right:4px}.muted{color:#777}
</style></head><body>
<h1 id="title"></h1>
<p class="muted">Decision: quality with paired 95% bootstrap intervals over instances, then CPU latency classes, then
the declared simplicity order (docs/decisions.md). Grey points are strategies that did not compete (not meant for the
source, or incomplete); rings: grey = tied for best, black = recommended.</p>
<h2>Ship this</h2><div id="ship"></div>
<h2>Per source and budget</h2>
<div class="filters"><label>source<select id="f-source"></select></label><label>budget<select id="f-budget"></select>
</label><label>dedupe<select id="f-dedupe"></select></label><label>order<select id="f-order"></select></label></div>
<p class="legend" id="legend"></p><div id="panels"></div><div id="tooltip"></div>
<script id="data" type="application/json">__DATA__</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const NS = "http://www.w3.org/2000/svg";
document.getElementById("title").textContent = D.title;
function el(tag, attrs, text) {
  const e = tag.startsWith("svg:") ? document.createElementNS(NS, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function ship() {
  const box = document.getElementById("ship");
  const domains = [...new Set(D.ship.map(l => l.domain))];
  for (const dom of domains) {
    box.appendChild(el("h3", {}, dom));
    const t = el("table", {"class": "ship"});
    const head = el("tr");
    for (const h of ["latency budget (CPU per call)", "ship", "parameters", "dedupe", "order", "best or tied-best",
                     "worst regret", "loses in"]) head.appendChild(el("th", {}, h));
    t.appendChild(head);
    for (const l of D.ship.filter(x => x.domain === dom)) {
      const tr = el("tr");
      const cells = l.strategy ? [l.latency, l.strategy, l.params, l.dedupe, l.order, l.held, l.regret, l.losses]
                               : [l.latency, "nothing fits every cell", "", "", "", "", "", ""];
      cells.forEach((c, k) => { const td = el("td", {}, c); if (k === 1) td.style.fontWeight = "600"; tr.appendChild(td); });
      t.appendChild(tr);
    }
    box.appendChild(t);
  }
}
function options(id, values) {
  const s = document.getElementById(id);
  for (const v of values) s.appendChild(el("option", {value: v}, v));
  s.addEventListener("change", draw);
}
const orders = [...new Set(D.cells.flatMap(c => c.points.map(p => p.o)))].sort((a, b) =>
  (a !== "original") - (b !== "original") || a.localeCompare(b));
options("f-source", ["all", ...new Set(D.cells.map(c => c.source))]);
options("f-budget", ["all", ...new Set(D.cells.map(c => c.budget))]);
options("f-dedupe", ["all", ...new Set(D.cells.map(c => c.dedupe))]);
options("f-order", orders);
const legend = document.getElementById("legend");
for (const [s, col] of Object.entries(D.colours)) {
  const span = el("span"); const dot = el("i"); dot.style.background = col;
  span.appendChild(dot); span.appendChild(document.createTextNode(s)); legend.appendChild(span);
}
const tip = document.getElementById("tooltip");
function tipText(cell, p) {
  const lines = [`${p.s} (order ${p.o})`, `mean ${cell.metric} ${p.q.toFixed(3)} over n=${cell.n} instances`];
  if (p.iv) lines.push(p.pick || (p.iv[0] === 0 && p.iv[1] === 0 && p.iv[2] === 0) ? "best or equal to the best"
                       : `vs best: ${p.iv[0].toFixed(3)} [${p.iv[1].toFixed(3)}, ${p.iv[2].toFixed(3)}] (95%)`);
  lines.push(`CPU median ${p.cpu.toPrecision(2)} reference ms per call` + (p.cls ? ` (class ${p.cls})` : ""));
  if (p.eff !== null) lines.push(`order efficiency ${p.eff.toFixed(3)}`);
  if (p.tied) lines.push("tied for best"); if (p.pick) lines.push("recommended");
  if (p.grey) lines.push(`not compared: ${p.grey}`);
  return lines.join("\n");
}
function panel(cell, order) {
  let pts = cell.points.filter(p => p.o === order), note = "";
  if (!pts.length && cell.points.length) {  // this source ran other orders only: show its first
    const own = cell.points[0].o; pts = cell.points.filter(p => p.o === own); note = ` [order ${own}]`;
  }
  const W = 380, H = 250, L = 52, R = 12, T = 10, B = 34;
  const div = el("div", {"class": "panel", "data-cell": cell.id});
  div.appendChild(el("h4", {}, `${cell.id} (n=${cell.n})${note}`));
  div.appendChild(el("p", {}, (cell.pick ? `recommended: ${cell.pick}; ` : "no pick; ") + cell.why));
  const svg = el("svg:svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`});
  div.appendChild(svg);
  if (!pts.length) { svg.appendChild(el("svg:text", {x: 20, y: 40, "font-size": 12}, "no measured point")); return div; }
  const xs = pts.map(p => Math.log10(p.cpu)), ys = pts.map(p => p.q);
  let x0 = Math.floor(Math.min(...xs) - 0.15), x1 = Math.ceil(Math.max(...xs) + 0.15);
  // The quality axis spans the points shown: the range the decision is made in, not [0, 1].
  let y0 = Math.min(...ys), y1 = Math.max(...ys); const pad = Math.max(0.005, 0.12 * (y1 - y0));
  y0 -= pad; y1 += pad;
  const X = v => L + (v - x0) / (x1 - x0) * (W - L - R), Y = v => T + (y1 - v) / (y1 - y0) * (H - T - B);
  svg.appendChild(el("svg:rect", {x: L, y: T, width: W - L - R, height: H - T - B, fill: "none", stroke: "#999"}));
  for (let k = x0; k <= x1; k++) {
    svg.appendChild(el("svg:line", {x1: X(k), x2: X(k), y1: T, y2: H - B, stroke: "#eee"}));
    svg.appendChild(el("svg:text", {x: X(k), y: H - B + 13, "font-size": 10, "text-anchor": "middle"}, `${10 ** k}`));
  }
  svg.appendChild(el("svg:text", {x: (L + W - R) / 2, y: H - 4, "font-size": 10, "text-anchor": "middle"},
                     "CPU reference ms per call (log)"));
  for (let k = 0; k <= 4; k++) {
    const v = y0 + (y1 - y0) * k / 4;
    svg.appendChild(el("svg:text", {x: L - 4, y: Y(v) + 3, "font-size": 10, "text-anchor": "end"}, v.toFixed(3)));
  }
  svg.appendChild(el("svg:text", {x: 11, y: (T + H - B) / 2, "font-size": 10, "text-anchor": "middle",
                     transform: `rotate(-90 11 ${(T + H - B) / 2})`}, `mean ${cell.metric}`));
  for (const p of pts) {
    const cx = X(Math.log10(p.cpu)), cy = Y(p.q);
    if (p.pick) svg.appendChild(el("svg:circle", {cx, cy, r: 11, fill: "none", stroke: "#000", "stroke-width": 1.6}));
    if (p.tied) svg.appendChild(el("svg:circle", {cx, cy, r: 8, fill: "none", stroke: "#888"}));
    const dot = el("svg:circle", {cx, cy, r: 5, "class": "pt", "data-strategy": p.s,
                                  fill: p.grey ? "#c8c8c8" : D.colours[p.s], "fill-opacity": p.grey ? 0.7 : 0.95});
    dot.addEventListener("mouseenter", ev => { tip.textContent = tipText(cell, p); tip.style.display = "block";
      tip.style.left = (ev.clientX + 14) + "px"; tip.style.top = (ev.clientY + 10) + "px"; });
    dot.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    svg.appendChild(dot);
    if (p.pick) svg.appendChild(el("svg:text", {x: cx + 13, y: cy - 8, "font-size": 10}, p.s));
  }
  return div;
}
function draw() {
  const f = id => document.getElementById(id).value;
  const box = document.getElementById("panels"); box.replaceChildren();
  for (const c of D.cells) {
    if ((f("f-source") !== "all" && c.source !== f("f-source")) || (f("f-budget") !== "all" && c.budget !== f("f-budget"))
        || (f("f-dedupe") !== "all" && c.dedupe !== f("f-dedupe"))) continue;
    box.appendChild(panel(c, f("f-order")));
  }
}
ship(); draw();
</script></body></html>
"""
