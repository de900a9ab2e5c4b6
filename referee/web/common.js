// Shared helpers of the referee's pages: the API, tokens kept in this browser, plots.
const q = new URLSearchParams(location.search);
function tokenFor(tableId) { return localStorage.getItem("nertz-token-" + tableId) || ""; }
function setToken(tableId, token) { localStorage.setItem("nertz-token-" + tableId, token); }
async function api(method, path, body, tableId, raw) {
  const headers = {};
  const tok = tableId != null ? tokenFor(tableId) : "";
  if (tok) headers["Authorization"] = "Bearer " + tok;
  let payload;
  if (raw) { payload = body; headers["Content-Type"] = "application/octet-stream"; }
  else if (body !== undefined) { payload = JSON.stringify(body); headers["Content-Type"] = "application/json"; }
  const r = await fetch(path, {method, headers, body: payload});
  const text = await r.text();
  let data; try { data = JSON.parse(text); } catch (e) { data = text; }
  if (!r.ok) throw new Error((data && data.detail) || r.statusText);
  return data;
}
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}
function describe(e) {
  switch (e.type) {
    case "move": return `seat${e.seat} ${e.card}${e.n > 1 ? " (+" + (e.n - 1) + ")" : ""} ${e.from} → ${e.to}`;
    case "draw": return `seat${e.seat} draws`;
    case "call": return `seat${e.seat} calls — ${e.valid ? "TRUE" : "false"}`;
    case "flag": return `FLAG ${e.rule} seat${e.seat ?? "-"} ${e.card || ""} ${e.place || ""}`;
    case "round_end": return `round ends (${e.reason}) scores ${JSON.stringify(e.scores)}`;
    case "retract": return `seat${e.seat} takes ${e.card} back ${e.from} → ${e.to}`;
    case "unseen": return `seat${e.seat} ${e.card} left ${e.from} unseen (pile seen empty)`;
    case "deal": return `deal seat${e.seat}`;
    default: return `${e.type}${e.seat != null ? " seat" + e.seat : ""}`;
  }
}
const COLORS = ["#f6c945", "#6fd0ff", "#ff7b7b", "#9dff8a", "#d59bff", "#ffa64d", "#7fffe0", "#ffffff"];
// A line plot as SVG: series = [[y0, y1, ...], ...] (one per seat), xs shared.
function linePlot(svg, xs, series, xlabel) {
  const W = 420, H = 180, P = 30;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`); svg.innerHTML = "";
  const all = series.flat(); if (!xs.length || !all.length) return;
  const ymin = Math.min(0, ...all), ymax = Math.max(1, ...all);
  const xmin = Math.min(...xs), xmax = Math.max(xmin + 1, ...xs);
  const X = x => P + (x - xmin) / (xmax - xmin) * (W - 2 * P);
  const Y = y => H - P + (ymin - y) / (ymax - ymin) * (H - 2 * P);
  const ns = "http://www.w3.org/2000/svg";
  const add = (tag, attrs, text) => { const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); if (text != null) e.textContent = text; svg.append(e); };
  add("line", {x1: P, y1: Y(0), x2: W - P, y2: Y(0), stroke: "#5a8"});
  add("text", {x: 2, y: Y(ymax) + 4}, ymax); add("text", {x: 2, y: Y(ymin)}, ymin);
  add("text", {x: W - P - 60, y: H - 4}, xlabel);
  series.forEach((ys, k) => add("polyline", {fill: "none", stroke: COLORS[k % 8], "stroke-width": 2,
    points: ys.map((y, i) => `${X(xs[i])},${Y(y)}`).join(" ")}));
}
