// The Tensor view's page: the heatmap (zoomed with the wheel, panned by dragging), the
// sliders of the other axes, the checks and the statistics. Its script asks the extension
// for tiles ({type: 'tile', key, query}) and draws what comes back; the layout and tile
// logic are tensorTiles.ts's functions, whose source the page includes.
import * as tiles from './tensorTiles';

/** The functions of tensorTiles.ts the page's script uses, as source text. */
export function pageFunctions(): string {
  const used = [
    tiles.cellStep, tiles.fitWhole, tiles.clampViewport, tiles.zoomAt, tiles.panBy, tiles.tileRequests,
    tiles.tileKey, tiles.parseType, tiles.chooseLayout, tiles.atFor, tiles.describeCell, tiles.shortestValue,
    tiles.cellFlags, tiles.colorOf,
  ];
  return [
    `const TILE_SIDE = ${tiles.TILE}, TILE = TILE_SIDE;`,
    `const MOST_SCALE = ${tiles.MAX_SCALE}, MAX_SCALE = MOST_SCALE;`,
    `const NON_NEGATIVE_DOMAINS = ${JSON.stringify(tiles.NON_NEGATIVE)};`,
    ...used.map((f) => f.toString()),
  ].join('\n');
}

const SCRIPT = String.raw`
const api = acquireVsCodeApi();
const canvas = document.getElementById('heat');
const ctx = canvas.getContext('2d');
const tip = document.getElementById('tip');
let state = null;
const cache = new Map();
const pending = new Set();
const GAP = 6;

function dark() {
  return document.body.classList.contains('vscode-dark') || document.body.classList.contains('vscode-high-contrast');
}
function plane() {
  const { summary, layout } = state;
  if (layout.kind === 'line') return { R: 1, C: summary.shape[0] };
  return { R: summary.shape[layout.rows], C: summary.shape[layout.cols] };
}
function panelCount() {
  return state.layout.multiples >= 0 ? state.summary.shape[state.layout.multiples] : 1;
}
function geometry() {
  const n = panelCount();
  const across = Math.ceil(Math.sqrt(n));
  const width = Math.max(64, canvas.parentElement.clientWidth - 2);
  const pw = Math.floor((width - GAP * (across - 1)) / across);
  const { R, C } = plane();
  const ph = state.layout.kind === 'line' ? 120 : Math.max(48, Math.min(pw, Math.round(pw * R / C)));
  return { n, across, pw, ph, width, height: Math.ceil(n / across) * (ph + GAP + 14) };
}
function queryFor(at, request) {
  const { layout } = state;
  const axes = layout.kind === 'line' ? { rows: 0, cols: 1, at: '' } : { rows: layout.rows, cols: layout.cols, at: at.join(',') };
  return { ...axes, ...request };
}
function atOf(panel, channel) {
  const { summary, layout } = state;
  if (layout.kind === 'line') return [];
  const index = { ...state.index };
  if (layout.multiples >= 0) index[layout.multiples] = panel;
  if (layout.channels >= 0) index[layout.channels] = channel;
  return atFor(summary.shape.length, layout.rows, layout.cols, index);
}
function want(at, request) {
  const key = tileKey(state.layout.rows, state.layout.cols, at, request);
  if (!cache.has(key) && !pending.has(key)) {
    pending.add(key);
    api.postMessage({ type: 'tile', key, query: queryFor(at, request) });
  }
  return cache.get(key);
}
/** The cached tile holding element (r, c) at this step or a coarser one, for drawing while a finer one loads. */
function coarser(at, request) {
  for (let step = request.row_step * 2; step <= request.row_step * 64; step *= 2) {
    const span = TILE * step;
    const key = tileKey(state.layout.rows, state.layout.cols, at,
      { row: Math.floor(request.row / span) * span, col: Math.floor(request.col / span) * span, row_step: step, col_step: step });
    if (cache.has(key)) return cache.get(key);
  }
  return undefined;
}
function shown(tile, r, c) {
  const colors = state.layout.colors;
  if (colors === 'mask') return tile.mean[r][c];
  if (colors === 'sequential') return tile.max[r][c];
  const lo = tile.min[r][c], hi = tile.max[r][c];
  if (lo === null || hi === null) return null;
  return Math.abs(lo) > Math.abs(hi) ? lo : hi;
}
function range() {
  const { layout, summary } = state;
  if (layout.range) return layout.range;
  const lo = summary.stats.min ?? 0, hi = summary.stats.max ?? 1;
  if (layout.colors === 'sequential') return [Math.min(0, lo), hi];
  const m = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
  return [-m, m];
}
function hatch(rgb) {
  const tileCanvas = document.createElement('canvas');
  tileCanvas.width = tileCanvas.height = 6;
  const t = tileCanvas.getContext('2d');
  t.strokeStyle = rgb; t.lineWidth = 1.5;
  t.beginPath(); t.moveTo(0, 6); t.lineTo(6, 0); t.stroke();
  return ctx.createPattern(tileCanvas, 'repeat');
}
/** A value of one axis as a line: each cell's mean, with its least and greatest as a band; NaN and ±∞ in red. */
function drawLine(tile, x0, y0, panel) {
  const { view, summary } = state;
  const lo = state.layout.range ? state.layout.range[0] : summary.stats.min ?? 0;
  const hi = state.layout.range ? state.layout.range[1] : summary.stats.max ?? 1;
  const y = (v) => y0 + 4 + (panel.ph - 8) * (1 - (hi > lo ? (v - lo) / (hi - lo) : 0.5));
  const cell = tile.col_step * view.scale;
  const fg = getComputedStyle(document.body).color;
  ctx.globalAlpha = 0.3; ctx.fillStyle = fg;
  for (let c = 0; c < tile.cols; c++) {
    const least = tile.min[0][c], greatest = tile.max[0][c];
    if (least === null) continue;
    const x = x0 + (tile.col + c * tile.col_step - view.col) * view.scale;
    ctx.fillRect(x, y(greatest), Math.max(cell, 1), Math.max(y(least) - y(greatest), 1));
  }
  ctx.globalAlpha = 1; ctx.strokeStyle = fg; ctx.lineWidth = 1.5; ctx.beginPath();
  let drawing = false;
  for (let c = 0; c < tile.cols; c++) {
    const v = tile.mean[0][c];
    const x = x0 + (tile.col + (c + 0.5) * tile.col_step - view.col) * view.scale;
    if (tile.nan[0][c] + tile.inf[0][c] > 0) {
      ctx.save(); ctx.fillStyle = hatch('rgb(220, 30, 30)'); ctx.fillRect(x - Math.max(cell, 3) / 2, y0, Math.max(cell, 3), panel.ph); ctx.restore();
    }
    if (v === null) { drawing = false; continue; }
    if (drawing) ctx.lineTo(x, y(v)); else ctx.moveTo(x, y(v));
    drawing = true;
  }
  ctx.stroke();
}
function drawTile(tile, channels, x0, y0, panel) {
  const { view } = state;
  if (state.layout.kind === 'line') { drawLine(tile, x0, y0, panel); return; }
  const [lo, hi] = range();
  const off = document.createElement('canvas');
  off.width = tile.cols; off.height = tile.rows;
  const image = off.getContext('2d').createImageData(tile.cols, tile.rows);
  const isDark = dark();
  for (let r = 0; r < tile.rows; r++) {
    for (let c = 0; c < tile.cols; c++) {
      let rgb;
      if (channels) {
        const scale = state.summary.dtype === 'uint8' ? 255 : 1;
        rgb = channels.map((t) => Math.round(255 * Math.max(0, Math.min(1, (t.mean[r][c] ?? 0) / scale))));
      } else {
        const v = shown(tile, r, c);
        rgb = v === null ? (isDark ? [60, 60, 60] : [200, 200, 200]) : colorOf(v, lo, hi, state.layout.colors, isDark);
      }
      image.data.set([rgb[0], rgb[1], rgb[2], 255], 4 * (r * tile.cols + c));
    }
  }
  off.getContext('2d').putImageData(image, 0, 0);
  const cell = tile.row_step * view.scale;
  const x = x0 + (tile.col - view.col) * view.scale;
  const y = y0 + (state.layout.kind === 'line' ? 0 : (tile.row - view.row) * view.scale);
  const h = state.layout.kind === 'line' ? panel.ph : tile.rows * cell;
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(off, x, y, tile.cols * cell, h);
  const red = hatch('rgb(220, 30, 30)'), orange = hatch('rgb(245, 140, 0)');
  const rings = [];
  for (let r = 0; r < tile.rows; r++) {
    for (let c = 0; c < tile.cols; c++) {
      const flags = cellFlags(tile.nan[r][c], tile.inf[r][c], tile.min[r][c], tile.max[r][c], state.layout.domain);
      if (!flags.bad && !flags.outside) continue;
      const cx = x + c * cell, cy = y + r * cell;
      const color = flags.bad ? 'rgb(220, 30, 30)' : 'rgb(245, 140, 0)';
      if (cell >= 4) {
        ctx.fillStyle = flags.bad ? red : orange;
        ctx.fillRect(cx, cy, cell, cell);
        ctx.strokeStyle = color; ctx.lineWidth = 1;
        ctx.strokeRect(cx + 0.5, cy + 0.5, cell - 1, cell - 1);
      } else {
        rings.push([cx + cell / 2, cy + cell / 2, color]);
      }
    }
  }
  for (const [cx, cy, color] of rings) {
    ctx.strokeStyle = color; ctx.lineWidth = 1.5;
    ctx.beginPath(); ctx.arc(cx, cy, 5, 0, 2 * Math.PI); ctx.stroke();
  }
  if (tile.bad_rows) {
    ctx.fillStyle = 'rgb(220, 30, 30)';
    tile.bad_rows.forEach((count, r) => { if (count > 0) ctx.fillRect(x0 - 5, y + r * cell, 4, Math.max(cell, 2)); });
  }
  if (tile.row_step === 1 && cell >= 34 && !channels) {
    ctx.font = Math.min(12, cell / 3) + 'px var(--vscode-editor-font-family, monospace)';
    ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
    for (let r = 0; r < tile.rows; r++) {
      for (let c = 0; c < tile.cols; c++) {
        const v = tile.mean[r][c];
        if (v === null) continue;
        const rgb = colorOf(v, lo, hi, state.layout.colors, isDark);
        ctx.fillStyle = rgb[0] * 0.3 + rgb[1] * 0.59 + rgb[2] * 0.11 > 140 ? '#111' : '#eee';
        const text = shortestValue(v, state.summary.dtype);
        if (ctx.measureText(text).width <= cell - 4) ctx.fillText(text, x + (c + 0.5) * cell, y + (r + 0.5) * cell);
      }
    }
  }
}
function draw() {
  if (!state || state.layout.kind === 'scalar') return;
  const g = geometry();
  const ratio = window.devicePixelRatio || 1;
  canvas.style.width = g.width + 'px'; canvas.style.height = g.height + 'px';
  canvas.width = Math.round(g.width * ratio); canvas.height = Math.round(g.height * ratio);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, g.width, g.height);
  const { R, C } = plane();
  state.view = clampViewport({ ...state.view, width: g.pw - 6, height: g.ph }, R, C);
  const requests = tileRequests(state.view, R, C);
  const fg = getComputedStyle(document.body).color;
  for (let p = 0; p < g.n; p++) {
    const px = (p % g.across) * (g.pw + GAP) + 6, py = Math.floor(p / g.across) * (g.ph + GAP + 14) + 14;
    if (g.n > 1) {
      ctx.fillStyle = fg; ctx.font = '11px sans-serif'; ctx.textAlign = 'left'; ctx.textBaseline = 'alphabetic';
      ctx.fillText(state.summary.axes[state.layout.multiples] + '=' + p, px, py - 3);
    }
    ctx.save();
    ctx.beginPath(); ctx.rect(px - 6, py, g.pw, g.ph); ctx.clip();
    for (const request of requests) {
      if (state.layout.channels >= 0) {
        const parts = [0, 1, 2].map((ch) => want(atOf(p, ch), request));
        if (parts.every((t) => t)) drawTile(parts[0], parts, px, py, g);
      } else {
        const at = atOf(p, 0);
        const tile = want(at, request) || coarser(at, request);
        if (tile) drawTile(tile, null, px, py, g);
      }
    }
    ctx.restore();
  }
}
function cellAt(x, y) {
  const g = geometry();
  const column = Math.floor(x / (g.pw + GAP)), line = Math.floor(y / (g.ph + GAP + 14));
  const p = line * g.across + column;
  if (column >= g.across || p >= g.n) return undefined;
  const px = column * (g.pw + GAP) + 6, py = line * (g.ph + GAP + 14) + 14;
  return { p, x: x - px, y: y - py };
}
function describe(where) {
  const { summary, layout, view } = state;
  const { R, C } = plane();
  const r = layout.kind === 'line' ? 0 : Math.floor(view.row + where.y / view.scale);
  const c = Math.floor(view.col + where.x / view.scale);
  if (r < 0 || c < 0 || r >= R || c >= C) return '';
  const step = cellStep(view.scale);
  const span = TILE * step;
  const at = atOf(where.p, 0);
  const tile = cache.get(tileKey(layout.rows, layout.cols, at, { row: Math.floor(r / span) * span, col: Math.floor(c / span) * span, row_step: step, col_step: step }));
  const index = summary.shape.map((_, axis) => state.index[axis] ?? 0);
  if (layout.multiples >= 0) index[layout.multiples] = where.p;
  if (layout.kind === 'line') index[0] = c; else { index[layout.rows] = r; index[layout.cols] = c; }
  let text = describeCell(state.expression, summary.axes, index);
  if (tile) {
    const tr = Math.floor((r - tile.row) / step), tc = Math.floor((c - tile.col) / step);
    const v = tile.mean[tr]?.[tc];
    if (tile.nan[tr]?.[tc] > 0) text += ' NaN';
    else if (step === 1) text += ' = ' + (v === null ? (tile.inf[tr][tc] ? '±∞' : '') : shortestValue(v, summary.dtype));
    else text += ' (' + step + '×' + step + ': mean ' + shortestValue(v, 'float32') + ', least ' + shortestValue(tile.min[tr][tc], 'float32') + ', greatest ' + shortestValue(tile.max[tr][tc], 'float32') + ')';
  }
  return text;
}
function sliders() {
  const box = document.getElementById('sliders');
  box.textContent = '';
  for (const axis of state.layout.sliders) {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'range'; input.min = '0'; input.max = String(state.summary.shape[axis] - 1); input.value = String(state.index[axis] ?? 0);
    const value = document.createElement('span');
    value.textContent = state.summary.axes[axis] + '=' + input.value;
    input.addEventListener('input', () => { state.index[axis] = Number(input.value); value.textContent = state.summary.axes[axis] + '=' + input.value; draw(); });
    label.append(value, input);
    box.append(label);
  }
}
function show(first) {
  const { layout } = state;
  if (!first) return;
  first.forEach((i, axis) => { if (layout.sliders.includes(axis)) state.index[axis] = i; });
  const { R, C } = plane();
  const r = layout.kind === 'line' ? 0 : first[layout.rows] ?? 0, c = layout.kind === 'line' ? first[0] : first[layout.cols] ?? 0;
  const scale = MAX_SCALE / 2;
  state.view = clampViewport({ ...state.view, scale, row: r + 0.5 - state.view.height / scale / 2, col: c + 0.5 - state.view.width / scale / 2 }, R, C);
  sliders(); draw();
}
function checks() {
  const box = document.getElementById('checks');
  box.textContent = '';
  for (const check of state.summary.checks) {
    const line = document.createElement('div');
    line.className = check.ok ? 'ok' : 'bad';
    line.textContent = (check.ok ? '✓ ' : '✗ ') + check.check + (check.ok ? '' : ' (' + check.count + ')');
    if (!check.ok && (check.worst || check.first)) {
      const button = document.createElement('a');
      button.textContent = ' Show'; button.href = '#';
      button.addEventListener('click', (e) => {
        e.preventDefault();
        const at = check.first || check.worst;
        // A row's index leaves out the axis it sums over: the heatmap's columns.
        show('tolerance' in check ? [...at.slice(0, state.layout.cols), 0, ...at.slice(state.layout.cols)] : at);
      });
      line.append(button);
    }
    box.append(line);
  }
  document.getElementById('stats').innerHTML = '';
  for (const [k, v] of Object.entries(state.summary.stats)) {
    const row = document.createElement('tr');
    const a = document.createElement('td'), b = document.createElement('td');
    a.textContent = k; b.textContent = typeof v === 'number' && !Number.isInteger(v) ? shortestValue(v, 'float32') : String(v);
    row.append(a, b);
    document.getElementById('stats').append(row);
  }
}
window.addEventListener('message', (event) => {
  const message = event.data;
  if (message.type === 'tile') {
    pending.delete(message.key);
    if (message.tile) { cache.set(message.key, message.tile); draw(); }
    return;
  }
  if (message.type !== 'show') return;
  cache.clear(); pending.clear();
  const { expression, summary } = message;
  const layout = chooseLayout(summary.shape, summary.type, summary.dtype);
  state = { expression, summary, layout, index: {}, view: { row: 0, col: 0, scale: 1, width: 1, height: 1 } };
  document.getElementById('title').textContent = expression + ': ' + (summary.type || ('[' + summary.shape.join(' ') + '] ' + summary.dtype)) + (summary.type ? ' ' + summary.dtype : '');
  document.getElementById('scalar').textContent = layout.kind === 'scalar' ? String(summary.stats.mean) : '';
  canvas.style.display = layout.kind === 'scalar' ? 'none' : '';
  const g = geometry();
  const { R, C } = plane();
  state.view = fitWhole(R, C, g.pw - 6, g.ph);
  sliders(); checks(); draw();
});
let drag = null;
canvas.addEventListener('wheel', (e) => {
  if (!state) return;
  e.preventDefault();
  const where = cellAt(e.offsetX, e.offsetY);
  if (!where) return;
  const { R, C } = plane();
  state.view = zoomAt(state.view, Math.exp(-e.deltaY * 0.002), where.x, where.y, R, C);
  draw();
}, { passive: false });
canvas.addEventListener('mousedown', (e) => { drag = { x: e.offsetX, y: e.offsetY }; });
window.addEventListener('mouseup', () => { drag = null; });
canvas.addEventListener('mousemove', (e) => {
  if (!state) return;
  if (drag) {
    const { R, C } = plane();
    state.view = panBy(state.view, e.offsetX - drag.x, e.offsetY - drag.y, R, C);
    drag = { x: e.offsetX, y: e.offsetY };
    draw();
  }
  const where = cellAt(e.offsetX, e.offsetY);
  tip.textContent = where ? describe(where) : '';
});
window.addEventListener('resize', draw);
`;

/** The view's page, running only its own script (the nonce's). */
export function viewHtml(nonce: string): string {
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}';">
<style>
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size, 13px); color: var(--vscode-foreground); padding: 4px; }
#main { display: block; } #side { margin-top: 6px; }
@media (min-width: 560px) { #main { display: flex; gap: 12px; align-items: flex-start; } #map { flex: 1 1 auto; min-width: 0; } #side { flex: 0 0 220px; margin-top: 0; } }
canvas { display: block; cursor: grab; }
#tip { min-height: 1.3em; font-family: var(--vscode-editor-font-family, monospace); font-size: 12px; }
#sliders label { display: flex; gap: 6px; align-items: center; } #sliders span { min-width: 4em; }
.bad { color: var(--vscode-errorForeground); } .ok { color: var(--vscode-testing-iconPassed); }
a { color: var(--vscode-textLink-foreground); }
table { border-collapse: collapse; } td { padding: 0 6px 0 0; }
</style></head>
<body><div id="title">Use View Tensor on a value while the program is stopped.</div>
<div id="main"><div id="map"><div id="scalar"></div><canvas id="heat" width="256" height="256"></canvas><div id="tip"></div><div id="sliders"></div></div>
<div id="side"><div id="checks"></div><table id="stats"></table></div></div>
<script nonce="${nonce}">
${pageFunctions()}
${SCRIPT}
</script></body></html>`;
}
