// The Tensor view's page: the heatmap (zoomed with the wheel, panned by dragging), the
// sliders of the other axes, the checks and the statistics. Its script asks the extension
// for tiles ({type: 'tile', key, query}) and draws what comes back; the layout and tile
// logic are tensorTiles.ts's functions, whose source the page includes.
import * as tiles from './tensorTiles';

/** The functions of tensorTiles.ts the page's script uses, as source text. */
export function pageFunctions(): string {
  const used = [
    tiles.cellStep, tiles.fitWhole, tiles.clampViewport, tiles.zoomAt, tiles.panBy, tiles.tileRequests,
    tiles.tileKey, tiles.parseType, tiles.splitShape, tiles.chooseLayout, tiles.finishLayout, tiles.atFor,
    tiles.tileQuery, tiles.arrangementKey, tiles.toViewIndex, tiles.colorRange, tiles.describeCell,
    tiles.shortestValue, tiles.cellFlags, tiles.colorOf, tiles.roleOf, tiles.rolesFor, tiles.withRole, tiles.recolor, tiles.splitLayout,
  ];
  return [
    `const TILE_SIDE = ${tiles.TILE}, TILE = TILE_SIDE;`,
    `const MOST_SCALE = ${tiles.MAX_SCALE}, MAX_SCALE = MOST_SCALE;`,
    `const NON_NEGATIVE_DOMAINS = ${JSON.stringify(tiles.NON_NEGATIVE)};`,
    `const CATEGORICAL_COLORS = ${JSON.stringify(tiles.CATEGORICAL)};`,
    `const REDUCTION_NAMES = ${JSON.stringify(tiles.REDUCTIONS)};`,
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
let generation = 0;

function dark() {
  return document.body.classList.contains('vscode-dark') || document.body.classList.contains('vscode-high-contrast');
}
function plane() {
  const { layout } = state;
  if (layout.kind === 'line') return { R: 1, C: layout.shape[0] };
  return { R: layout.shape[layout.rows], C: layout.shape[layout.cols] };
}
function panelCount() {
  return state.layout.multiples >= 0 ? state.layout.shape[state.layout.multiples] : 1;
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
function keyOf(at, request) {
  return generation + '#' + tileKey(state.layout.rows, state.layout.cols, at, request, arrangementKey(state.layout));
}
function atOf(panel, channel) {
  const { layout } = state;
  if (layout.kind === 'line') return [];
  const index = { ...state.index };
  if (layout.multiples >= 0) index[layout.multiples] = panel;
  if (layout.channels >= 0) index[layout.channels] = channel;
  return atFor(layout.shape.length, layout.rows, layout.cols, index, Object.keys(layout.reduce).map(Number));
}
function want(at, request) {
  const key = keyOf(at, request);
  if (!cache.has(key) && !pending.has(key)) {
    pending.add(key);
    api.postMessage({ type: 'tile', key, query: tileQuery(state.layout, at, request) });
  }
  return cache.get(key);
}
/** The cached tile holding element (r, c) at this step or a coarser one, for drawing while a finer one loads. */
function coarser(at, request) {
  for (let step = request.row_step * 2; step <= request.row_step * 64; step *= 2) {
    const span = TILE * step;
    const key = keyOf(at, { row: Math.floor(request.row / span) * span, col: Math.floor(request.col / span) * span, row_step: step, col_step: step });
    if (cache.has(key)) return cache.get(key);
  }
  return undefined;
}
/** The value a cell shows: the Cells menu's choice, else the greatest of values that can't be
 * negative, the mean of masks and indices, and the value of largest |x| of others. */
function shown(tile, r, c) {
  const colors = state.layout.colors;
  const cells = state.cells;
  if (cells === 'mean') return tile.mean[r][c];
  if (cells === 'min') return tile.min[r][c];
  if (cells === 'max') return tile.max[r][c];
  if (colors === 'mask' || colors === 'categorical') return tile.mean[r][c];
  if (colors === 'sequential') return tile.max[r][c];
  const lo = tile.min[r][c], hi = tile.max[r][c];
  if (lo === null || hi === null) return null;
  return Math.abs(lo) > Math.abs(hi) ? lo : hi;
}
function range() {
  return state.userRange || state.autoRange || colorRange(state.layout, state.summary.percentiles, null, true);
}
/** The least and greatest value the drawn cells show. */
function shownRange(drawn) {
  let lo = Infinity, hi = -Infinity;
  for (const tile of drawn) {
    for (let r = 0; r < tile.rows; r++) for (let c = 0; c < tile.cols; c++) {
      const v = shown(tile, r, c);
      if (v === null) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return lo <= hi ? [lo, hi] : null;
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
      image.data.set([rgb[0], rgb[1], rgb[2], rgb.length > 3 ? rgb[3] : 255], 4 * (r * tile.cols + c));
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
      const flags = cellFlags(tile.nan[r][c], tile.inf[r][c], tile.min[r][c], tile.max[r][c], state.layout.domain, tile.outside?.[r]?.[c]);
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
  if (tile.row_step === 1 && tile.col_step === 1 && cell >= 34 && !channels) {
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
  const drawn = [];
  for (let p = 0; p < g.n; p++) {
    const px = (p % g.across) * (g.pw + GAP) + 6, py = Math.floor(p / g.across) * (g.ph + GAP + 14) + 14;
    for (const request of requests) {
      if (state.layout.channels >= 0) {
        const parts = [...Array(Math.min(4, state.layout.shape[state.layout.channels])).keys()].map((ch) => want(atOf(p, ch), request));
        if (parts.every((t) => t)) drawn.push({ tile: parts[0], parts, px, py });
      } else {
        const at = atOf(p, 0);
        const tile = want(at, request) || coarser(at, request);
        if (tile) drawn.push({ tile, parts: null, px, py });
      }
    }
  }
  const oneElement = cellStep(state.view.scale) === 1;
  const cellsShown = shownRange(drawn.map((d) => d.tile));
  state.autoRange = colorRange(state.layout, state.summary.percentiles, cellsShown, oneElement);
  // The legend counts what the cells show: the values, or the cells' reductions and extremes.
  state.histogram = oneElement && !Object.keys(state.layout.reduce).length ? state.summary.histogram : histogramOf(drawn.map((d) => d.tile), cellsShown);
  for (let p = 0; p < g.n; p++) {
    const px = (p % g.across) * (g.pw + GAP) + 6, py = Math.floor(p / g.across) * (g.ph + GAP + 14) + 14;
    if (g.n > 1) {
      ctx.fillStyle = fg; ctx.font = '11px sans-serif'; ctx.textAlign = 'left'; ctx.textBaseline = 'alphabetic';
      ctx.fillText(state.layout.axes[state.layout.multiples] + '=' + p, px, py - 3);
    }
  }
  for (const d of drawn) {
    ctx.save();
    ctx.beginPath(); ctx.rect(d.px - 6, d.py, g.pw, g.ph); ctx.clip();
    drawTile(d.tile, d.parts, d.px, d.py, g);
    ctx.restore();
  }
  legend();
}
/** A histogram of the values the drawn cells show. */
function histogramOf(drawn, span) {
  if (!span) return null;
  const [lo, hi] = span[1] > span[0] ? span : [span[0], span[0] + 1];
  const counts = new Array(64).fill(0);
  for (const tile of drawn) {
    for (let r = 0; r < tile.rows; r++) for (let c = 0; c < tile.cols; c++) {
      const v = shown(tile, r, c);
      if (v !== null) counts[Math.min(63, Math.floor(64 * (v - lo) / (hi - lo)))]++;
    }
  }
  return { min: lo, max: hi, counts };
}
/** The histogram beside the heatmap, its legend: the colors of the range under the values' counts;
 * for categorical colors, each index's color. */
function legend() {
  const box = document.getElementById('legend');
  const hist = state.histogram;
  const kind = state.layout.colors;
  const text = document.getElementById('legend-text');
  if (kind === 'mask' || state.layout.kind !== 'heatmap' || (!hist && kind !== 'categorical')) { box.style.display = 'none'; text.textContent = ''; return; }
  box.style.display = '';
  const width = box.clientWidth || 200, height = kind === 'categorical' ? 18 : 46;
  const ratio = window.devicePixelRatio || 1;
  box.width = Math.round(width * ratio); box.height = Math.round(height * ratio);
  box.style.height = height + 'px';
  const g = box.getContext('2d');
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);
  if (kind === 'categorical') {
    const count = state.layout.range[1] + 1;
    const w = Math.min(36, (width - 4) / count);
    g.font = '11px sans-serif'; g.textAlign = 'center'; g.textBaseline = 'middle';
    for (let i = 0; i < count; i++) {
      const rgb = colorOf(i, 0, count - 1, kind, dark());
      g.fillStyle = 'rgb(' + rgb.join(',') + ')';
      g.fillRect(2 + i * w, 2, w - 2, 14);
      g.fillStyle = rgb[0] * 0.3 + rgb[1] * 0.59 + rgb[2] * 0.11 > 140 ? '#111' : '#fff';
      g.fillText(String(i), 2 + i * w + (w - 2) / 2, 9);
    }
    state.legendScale = null;
    text.textContent = '';
    return;
  }
  const [lo, hi] = range();
  // Around the color range, with room to drag its ends; counts beyond it pile at the edges.
  const room = (hi - lo) * 0.25;
  // While an end is dragged the legend's scale stays, so the end follows the mouse.
  const held = legendDrag !== null && state.legendScale;
  const a = held ? state.legendScale.a : Math.max(Math.min(lo, hist.min), lo - room);
  const b = held ? state.legendScale.b : Math.min(Math.max(hi, hist.max), hi + room);
  state.legendScale = { a, b, width };
  const x = (v) => 4 + (width - 8) * (v - a) / (b - a);
  for (let i = 0; i < width - 8; i++) {
    const v = a + (b - a) * i / (width - 8);
    const rgb = colorOf(Math.max(lo, Math.min(hi, v)), lo, hi, kind, dark());
    g.fillStyle = 'rgb(' + rgb.join(',') + ')';
    g.fillRect(4 + i, height - 12, 1, 8);
  }
  const most = Math.max(...hist.counts, 1);
  const bin = (hist.max - hist.min) / hist.counts.length;
  g.fillStyle = getComputedStyle(document.body).color;
  g.globalAlpha = 0.6;
  hist.counts.forEach((count, i) => {
    if (!count) return;
    const h = Math.max(1, (height - 18) * Math.sqrt(count / most));
    const x0 = Math.max(4, Math.min(width - 6, x(hist.min + i * bin)));
    const x1 = Math.max(x0 + 1, Math.min(width - 4, x(hist.min + (i + 1) * bin)));
    g.fillRect(x0, height - 14 - h, Math.max(1, x1 - x0 - 0.5), h);
  });
  // Counts outside the histogram's span, as bars at its edges.
  for (const [count, edge] of [[hist.below || 0, 4], [hist.above || 0, width - 7]]) {
    if (count) { const h = Math.max(1, (height - 18) * Math.sqrt(count / most)); g.fillRect(edge, height - 14 - Math.min(h, height - 18), 3, Math.min(h, height - 18)); }
  }
  g.globalAlpha = 1;
  g.strokeStyle = getComputedStyle(document.body).color; g.lineWidth = 2;
  for (const v of [lo, hi]) { g.beginPath(); g.moveTo(x(v), 2); g.lineTo(x(v), height - 2); g.stroke(); }
  text.textContent = shortestValue(lo, 'float32') + ' … ' + shortestValue(hi, 'float32') + (state.userRange ? ' (set)' : '');
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
  const tile = cache.get(keyOf(at, { row: Math.floor(r / span) * span, col: Math.floor(c / span) * span, row_step: step, col_step: step }));
  const index = layout.shape.map((_, axis) => state.index[axis] ?? 0);
  if (layout.multiples >= 0) index[layout.multiples] = where.p;
  if (layout.kind === 'line') index[0] = c; else { index[layout.rows] = r; index[layout.cols] = c; }
  const kept = layout.shape.map((_, axis) => axis).filter((axis) => !(axis in layout.reduce));
  let text = describeCell(state.expression, kept.map((axis) => layout.axes[axis]), kept.map((axis) => index[axis]));
  const reduced = Object.entries(layout.reduce).map(([axis, how]) => how + ' over ' + layout.axes[axis]);
  if (reduced.length) text += ' (' + reduced.join(', ') + ')';
  if (tile) {
    const tr = Math.floor((r - tile.row) / step), tc = Math.floor((c - tile.col) / step);
    const v = tile.mean[tr]?.[tc];
    if (tile.nan[tr]?.[tc] > 0) text += ' NaN';
    else if (step === 1) text += ' = ' + (v === null ? (tile.inf[tr][tc] ? '±∞' : '') : shortestValue(v, summary.dtype));
    else text += ' (' + step + '×' + step + ': mean ' + shortestValue(v, 'float32') + ', least ' + shortestValue(tile.min[tr][tc], 'float32') + ', greatest ' + shortestValue(tile.max[tr][tc], 'float32') + ')';
  }
  return text;
}
/** A menu for each axis's role: rows, columns, small multiples, channels, a slider or a reduction. */
function roles() {
  const box = document.getElementById('roles');
  box.textContent = '';
  if (state.layout.kind !== 'heatmap') return;
  const names = { rows: 'rows', cols: 'columns', multiples: 'small multiples', channels: 'color channels', slider: 'slider', absmax: 'largest |x|' };
  state.layout.axes.forEach((name, axis) => {
    const label = document.createElement('label');
    const select = document.createElement('select');
    select.dataset.axis = String(axis);
    for (const role of rolesFor(state.layout, axis)) {
      const option = document.createElement('option');
      option.value = role; option.textContent = names[role] || role;
      select.append(option);
    }
    select.value = roleOf(state.layout, axis);
    select.addEventListener('change', () => {
      const before = state.layout;
      state.layout = withRole(before, axis, select.value);
      if (state.layout.rows !== before.rows || state.layout.cols !== before.cols) {
        const g = geometry();
        const { R, C } = plane();
        state.view = fitWhole(R, C, g.pw - 6, g.ph);
      }
      state.layout = recolor(state.layout, state.base);
      roles(); sliders(); draw();
    });
    label.append(document.createTextNode(name + ' '), select);
    box.append(label);
  });
  // A group axis whose parts' sizes are known can be split into its parts.
  const { summary } = state;
  for (const [axis, parts] of Object.entries(summary.groups || {})) {
    const label = document.createElement('label');
    const check = document.createElement('input');
    check.type = 'checkbox';
    check.dataset.split = axis;
    const split = state.layout.split.map((s) => s.axis);
    check.checked = split.includes(Number(axis));
    check.addEventListener('change', () => {
      const next = check.checked ? [...split, Number(axis)] : split.filter((a) => a !== Number(axis));
      state.layout = splitLayout(summary.shape, summary.type, summary.dtype, summary.groups, summary.domain_size, next);
      state.index = {};
      const g = geometry();
      const { R, C } = plane();
      state.view = fitWhole(R, C, g.pw - 6, g.ph);
      roles(); sliders(); draw();
    });
    label.append(check, document.createTextNode(' split ' + summary.axes[Number(axis)] + ' into ' + parts.map((p) => p[0] + '=' + p[1]).join(' ')));
    box.append(label);
  }
}
function sliders() {
  const box = document.getElementById('sliders');
  box.textContent = '';
  for (const axis of state.layout.sliders) {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'range'; input.min = '0'; input.max = String(state.layout.shape[axis] - 1); input.value = String(state.index[axis] ?? 0);
    const value = document.createElement('span');
    value.textContent = state.layout.axes[axis] + '=' + input.value;
    input.addEventListener('input', () => { state.index[axis] = Number(input.value); value.textContent = state.layout.axes[axis] + '=' + input.value; draw(); });
    label.append(value, input);
    box.append(label);
  }
}
function show(at) {
  const { layout } = state;
  if (!at) return;
  const first = toViewIndex(layout, at);
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
function tabs(expressions, selected) {
  const bar = document.getElementById('tabs');
  bar.textContent = '';
  expressions.forEach((expression, i) => {
    const tab = document.createElement('span');
    tab.className = 'tab' + (i === selected ? ' selected' : '');
    tab.textContent = expression;
    tab.title = expression;
    tab.addEventListener('click', () => api.postMessage({ type: 'select', index: i }));
    const close = document.createElement('a');
    close.textContent = '×'; close.href = '#'; close.title = 'Remove';
    close.addEventListener('click', (e) => { e.preventDefault(); e.stopPropagation(); api.postMessage({ type: 'remove', index: i }); });
    tab.append(close);
    bar.append(tab);
  });
  const box = document.getElementById('expression');
  box.style.display = expressions.length ? '' : 'none';
  if (selected >= 0 && document.activeElement !== box) box.value = expressions[selected];
}
window.addEventListener('message', (event) => {
  const message = event.data;
  if (message.type === 'tile') {
    pending.delete(message.key);
    if (message.tile) { cache.set(message.key, message.tile); draw(); }
    return;
  }
  if (message.type === 'tabs') { tabs(message.expressions, message.selected); return; }
  if (message.type === 'stale') { document.getElementById('stale').style.display = ''; return; }
  if (message.type === 'error') {
    document.getElementById('error').textContent = message.expression + ': ' + message.message;
    return;
  }
  if (message.type === 'empty') {
    state = null; generation++; cache.clear(); pending.clear();
    document.getElementById('title').textContent = 'Use View Tensor on a value while the program is stopped.';
    for (const id of ['checks', 'stats', 'sliders', 'tip', 'scalar', 'error']) document.getElementById(id).textContent = '';
    canvas.style.display = 'none'; document.getElementById('legend').style.display = 'none';
    return;
  }
  if (message.type !== 'show') return;
  generation++; cache.clear(); pending.clear();
  document.getElementById('stale').style.display = 'none';
  document.getElementById('error').textContent = '';
  const { expression, summary } = message;
  const fresh = chooseLayout(summary.shape, summary.type, summary.dtype, summary.groups || {}, summary.domain_size);
  // The same expression again (another stop or frame): keep the roles, the zoom and the sliders.
  const same = state && state.expression === expression && JSON.stringify(state.base) === JSON.stringify(fresh);
  const layout = same ? state.layout : fresh;
  state = { expression, summary, layout, base: fresh, index: same ? state.index : {}, cells: same ? state.cells : 'default', userRange: same ? state.userRange : null, view: same ? state.view : { row: 0, col: 0, scale: 1, width: 1, height: 1 } };
  document.getElementById('cells').value = state.cells;
  document.getElementById('title').textContent = expression + ': ' + (summary.type || ('[' + summary.shape.join(' ') + '] ' + summary.dtype)) + (summary.type ? ' ' + summary.dtype : '');
  document.getElementById('scalar').textContent = layout.kind === 'scalar' ? String(summary.stats.mean) : '';
  canvas.style.display = layout.kind === 'scalar' ? 'none' : '';
  const g = geometry();
  const { R, C } = plane();
  if (!same) state.view = fitWhole(R, C, g.pw - 6, g.ph);
  roles(); sliders(); checks(); draw();
});
document.getElementById('expression').addEventListener('keydown', (e) => {
  if (e.key === 'Enter') api.postMessage({ type: 'change', expression: e.target.value });
});
document.getElementById('cells').addEventListener('change', (e) => { if (state) { state.cells = e.target.value; draw(); } });
const legendBox = document.getElementById('legend');
let legendDrag = null;
function legendValue(e) {
  const { a, b, width } = state.legendScale;
  return a + (b - a) * (e.offsetX - 4) / (width - 8);
}
legendBox.addEventListener('mousedown', (e) => {
  if (!state || !state.legendScale) return;
  e.preventDefault();
  const [lo, hi] = range();
  const v = legendValue(e);
  legendDrag = Math.abs(v - lo) < Math.abs(v - hi) ? 0 : 1;
});
legendBox.addEventListener('mousemove', (e) => {
  if (legendDrag === null || !state) return;
  const next = [...range()];
  next[legendDrag] = legendValue(e);
  if (next[1] > next[0]) { state.userRange = next; draw(); }
});
window.addEventListener('mouseup', () => { if (legendDrag !== null) { legendDrag = null; if (state) draw(); } });
legendBox.addEventListener('dblclick', () => { if (state) { state.userRange = null; draw(); } });
api.postMessage({ type: 'ready' });
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
#roles { display: flex; flex-wrap: wrap; gap: 4px 10px; margin-top: 4px; font-size: 12px; }
.bad { color: var(--vscode-errorForeground); } .ok { color: var(--vscode-testing-iconPassed); }
a { color: var(--vscode-textLink-foreground); }
table { border-collapse: collapse; } td { padding: 0 6px 0 0; }
#tabs { display: flex; flex-wrap: wrap; gap: 2px; margin-bottom: 3px; }
.tab { padding: 1px 6px; border: 1px solid var(--vscode-panel-border, #8884); border-radius: 3px; cursor: pointer; font-family: var(--vscode-editor-font-family, monospace); font-size: 12px; }
.tab.selected { background: var(--vscode-list-activeSelectionBackground, #0060c0); color: var(--vscode-list-activeSelectionForeground, #fff); }
.tab a { margin-left: 5px; text-decoration: none; color: inherit; }
#expression { width: 100%; box-sizing: border-box; margin-bottom: 3px; font-family: var(--vscode-editor-font-family, monospace); background: var(--vscode-input-background); color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, #8884); }
#stale { color: var(--vscode-editorWarning-foreground, #b80); font-style: italic; }
#legend { display: block; width: 100%; cursor: ew-resize; } #legend-text { font-size: 11px; margin-bottom: 4px; }
</style></head>
<body><div id="tabs"></div><input id="expression" type="text" style="display:none" title="The expression (Enter to show it)">
<div id="title">Use View Tensor on a value while the program is stopped.</div>
<div id="stale" style="display:none">The values of the last stop: the program is running.</div><div id="error" class="bad"></div>
<div id="main"><div id="map"><div id="scalar"></div><canvas id="heat" width="256" height="256"></canvas><div id="tip"></div><div id="sliders"></div><div id="roles"></div></div>
<div id="side"><canvas id="legend" height="46" title="Drag an end to set the range; double-click to reset it"></canvas><div id="legend-text"></div>
<label>Cells <select id="cells"><option value="default">default</option><option value="mean">mean</option><option value="min">least</option><option value="max">greatest</option></select></label>
<div id="checks"></div><table id="stats"></table></div></div>
<script nonce="${nonce}">
${pageFunctions()}
${SCRIPT}
</script></body></html>`;
}
