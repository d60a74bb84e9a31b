// Renders the Tensor view's page (vscode-extension/out/tensorViewPage.js) in headless
// Chromium with a fake VS Code API that answers tile requests from tensors made here, as
// shapescript._tensorview's server would, then zooms with the wheel and hovers a cell.
// Screenshots in a light and a dark theme go to cfg.out; one JSON line reports what the
// page asked for and showed.
const fs = require('fs');
const os = require('os');
const path = require('path');

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const { chromium } = require(cfg.playwright);
const { viewHtml } = require(path.join(cfg.extension, 'out', 'tensorViewPage.js'));

const THEMES = {
  light: { body: 'vscode-light', vars: '--vscode-foreground:#3b3b3b; --vscode-editor-background:#ffffff; --vscode-errorForeground:#e51400; --vscode-testing-iconPassed:#388a34; --vscode-textLink-foreground:#006ab1; --vscode-font-family:sans-serif; background:#ffffff;' },
  dark: { body: 'vscode-dark', vars: '--vscode-foreground:#cccccc; --vscode-editor-background:#1e1e1e; --vscode-errorForeground:#f48771; --vscode-testing-iconPassed:#73c991; --vscode-textLink-foreground:#3794ff; --vscode-font-family:sans-serif; background:#1e1e1e;' },
};

// The page's side of the fake: tensors by name, tiles cut as the server cuts them.
function fakeApi(SUMMARIES) {
  const tensors = {};
  function make(shape, value) {
    const data = new Float64Array(shape.reduce((a, b) => a * b, 1));
    const index = shape.map(() => 0);
    for (let i = 0; i < data.length; i++) {
      data[i] = value(index);
      for (let a = shape.length - 1; a >= 0; a--) { if (++index[a] < shape[a]) break; index[a] = 0; }
    }
    return { shape, data };
  }
  // att[b H n m] Prob over m: a causal softmax, one NaN at [0, 1, 5, 3], row [0, 2, 10] sums to 1.6.
  tensors.att = make([2, 4, 24, 24], ([b, h, n, m]) => {
    if (m > n) return 0;
    if (b === 0 && h === 1 && n === 5 && m === 3) return NaN;
    const w = (k) => Math.exp(-Math.abs(n - k) / (1 + h));
    let total = 0; for (let k = 0; k <= n; k++) total += w(k);
    return w(m) / total * (b === 0 && h === 2 && n === 10 ? 1.6 : 1);
  });
  // w[n D]: a large matrix of smooth waves, with one NaN and one ∞.
  tensors.w = make([1500, 1200], ([r, c]) => (r === 700 && c === 333 ? NaN : r === 20 && c === 1000 ? Infinity : Math.sin(r / 90) * Math.cos(c / 60) * (1 + r / 1500)));
  // loss[n]: a noisy falling curve, NaN at 1234. img[b 3 h w] Unit: two pictures of color gradients.
  tensors.loss = make([3000], ([i]) => (i === 1234 ? NaN : Math.exp(-i / 800) + 0.1 * Math.sin(i * 1.7)));
  tensors.img = make([2, 3, 64, 64], ([b, ch, r, c]) => (ch === 0 ? r / 63 : ch === 1 ? c / 63 : b === 0 ? 0.2 : ((r + c) % 16) / 15));
  // tokens[b (gh gw) D]: a 4 × 6 grid of patches whose norms grow from the centre, a NaN in one token.
  tensors.tokens = make([2, 24, 16], ([b, t, d]) => {
    const gh = Math.floor(t / 6), gw = t % 6;
    if (b === 0 && t === 9 && d === 5) return NaN;
    return (1 + Math.hypot(gh - 1.5, gw - 2.5) * (b + 1)) * Math.cos(d + t) / 4;
  });
  // labels[b n m] Index[5]: stripes of classes, one 7 (outside [0, 5)) at [0, 3, 20].
  tensors.labels = make([2, 16, 24], ([b, r, c]) => (b === 0 && r === 3 && c === 20 ? 7 : Math.floor((r + c + b * 3) / 5) % 5));
  // acts[n D]: small waves with a few huge outliers, so the percentiles, not the extremes, span the colors.
  tensors.acts = make([64, 96], ([r, c]) => ((r * 7 + c * 3) % 97 === 0 ? 400 : Math.sin(r / 6) + Math.cos(c / 9)));
  const REDUCE = {
    norm: (v) => Math.sqrt(v.reduce((a, x) => a + x * x, 0)),
    mean: (v) => v.reduce((a, x) => a + x, 0) / v.length,
  };
  function tile(name, q) {
    const { data } = tensors[name];
    let shape = tensors[name].shape.length === 1 ? [1, tensors[name].shape[0]] : tensors[name].shape.slice();
    // Split axes into their parts: the data's order stays, only the shape changes.
    const splits = String(q.split ?? '').split(';').filter((s) => s).map((s) => s.split(':')).map(([a, sizes]) => [Number(a), sizes.split(',').map(Number)]);
    for (const [axis, sizes] of splits.sort((x, y) => y[0] - x[0])) shape = [...shape.slice(0, axis), ...sizes, ...shape.slice(axis + 1)];
    const reduce = Object.fromEntries(String(q.reduce ?? '').split(';').filter((s) => s).map((s) => s.split(':')).map(([a, how]) => [Number(a), how]));
    const reduced = Object.keys(reduce).map(Number);
    const dims = shape.length;
    const rows = Number(q.rows), cols = Number(q.cols);
    const at = String(q.at).split(',').filter((s) => s !== '').map(Number);
    const rest = shape.map((_, i) => i).filter((i) => i !== rows && i !== cols && !reduced.includes(i));
    const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
    let base = 0; rest.forEach((axis, k) => { base += (at[k] ?? 0) * strides[axis]; });
    const offsets = [0];
    for (const axis of reduced) { const next = []; for (const o of offsets) for (let i = 0; i < shape[axis]; i++) next.push(o + i * strides[axis]); offsets.splice(0, offsets.length, ...next); }
    const how = reduced.length ? reduce[reduced[0]] : null;
    const rs = Number(q.row_step), cs = Number(q.col_step), r0 = Number(q.row), c0 = Number(q.col);
    const nr = Math.min(256, Math.ceil((shape[rows] - r0) / rs)), nc = Math.min(256, Math.ceil((shape[cols] - c0) / cs));
    const grid = () => Array.from({ length: nr }, () => new Array(nc).fill(null));
    const out = { rows: nr, cols: nc, row: r0, col: c0, row_step: rs, col_step: cs, reduced: how, mean: grid(), min: grid(), max: grid(), nan: grid(), inf: grid(), outside: grid() };
    const domainSize = SUMMARIES[name]?.summary.domain_size;
    for (let i = 0; i < nr; i++) for (let j = 0; j < nc; j++) {
      let sum = 0, count = 0, lo = Infinity, hi = -Infinity, nan = 0, inf = 0, outside = 0;
      for (let r = r0 + i * rs; r < Math.min(shape[rows], r0 + (i + 1) * rs); r++) for (let c = c0 + j * cs; c < Math.min(shape[cols], c0 + (j + 1) * cs); c++) {
        const elements = offsets.map((o) => data[base + r * strides[rows] + c * strides[cols] + o]);
        for (const e of elements) {
          if (Number.isNaN(e)) nan++; else if (!Number.isFinite(e)) inf++;
          else if (domainSize && (e < 0 || e >= domainSize || e !== Math.round(e))) outside++;
        }
        const v = how ? REDUCE[how](elements) : elements[0];
        if (Number.isFinite(v)) { sum += v; count++; lo = Math.min(lo, v); hi = Math.max(hi, v); }
      }
      out.mean[i][j] = count ? sum / count : null; out.min[i][j] = count ? lo : null; out.max[i][j] = count ? hi : null;
      out.nan[i][j] = nan; out.inf[i][j] = inf; out.outside[i][j] = outside;
    }
    if (name === 'att' && cols === dims - 1 && !reduced.length && !splits.length) {
      out.bad_rows = new Array(nr).fill(0);
      for (let i = 0; i < nr; i++) for (let r = r0 + i * rs; r < Math.min(shape[rows], r0 + (i + 1) * rs); r++) {
        let s = 0; for (let c = 0; c < shape[cols]; c++) s += data[base + r * strides[rows] + c * strides[cols]];
        if (!(Math.abs(s - 1) <= 1e-3)) out.bad_rows[i]++;
      }
    }
    return out;
  }
  window.__requests = [];
  window.__name = 'att';
  window.__api = {
    postMessage(message) {
      if (message.type !== 'tile') return;
      window.__requests.push(message.query);
      setTimeout(() => window.postMessage({ type: 'tile', key: message.key, tile: tile(window.__name, message.query) }, '*'), 0);
    },
  };
  window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__api.postMessage(m) });
}

const SUMMARIES = {
  att: {
    expression: 'att',
    summary: {
      shape: [2, 4, 24, 24], axes: ['b', 'H', 'n', 'm'], dtype: 'float32', device: 'cpu', type: '[b H n m] Prob over m',
      stats: { count: 4608, nan: 1, inf: 0, min: 0, max: 1, mean: 0.0417, std: 0.12, subnormal: 0, headroom_bits: 128 },
      checks: [
        { check: 'no NaN or ±∞', ok: false, count: 1, first: [0, 1, 5, 3] },
        { check: "every value is in Prob's range", ok: true, count: 0, first: null },
        { check: 'each row sums to 1 over m', ok: false, count: 2, first: [0, 1, 5], worst: [0, 2, 10] },
      ],
    },
  },
  w: {
    expression: 'm.w',
    summary: {
      shape: [1500, 1200], axes: ['n', 'D'], dtype: 'float32', device: 'cpu', type: '[n D]',
      stats: { count: 1800000, nan: 1, inf: 1, min: -2, max: 2, mean: 0, std: 0.5, subnormal: 0, headroom_bits: 127 },
      checks: [{ check: 'no NaN or ±∞', ok: false, count: 2, first: [20, 1000] }],
    },
  },
  loss: {
    expression: 'losses',
    summary: {
      shape: [3000], axes: ['0'], dtype: 'float32', device: 'cpu', type: null,
      stats: { count: 3000, nan: 1, inf: 0, min: -0.1, max: 1.1, mean: 0.3, std: 0.3, subnormal: 0, headroom_bits: 127 },
      checks: [{ check: 'no NaN or ±∞', ok: false, count: 1, first: [1234] }],
    },
  },
  img: {
    expression: 'images',
    summary: {
      shape: [2, 3, 64, 64], axes: ['b', 'c', 'h', 'w'], dtype: 'float32', device: 'cpu', type: '[b 3 h w] Unit',
      stats: { count: 24576, nan: 0, inf: 0, min: 0, max: 1, mean: 0.5, std: 0.3, subnormal: 0, headroom_bits: 128 },
      checks: [{ check: 'no NaN or ±∞', ok: true, count: 0, first: null }, { check: "every value is in Unit's range", ok: true, count: 0, first: null }],
    },
  },
  tokens: {
    expression: 'tokens',
    summary: {
      shape: [2, 24, 16], axes: ['b', '(gh gw)', 'D'], groups: { 1: [['gh', 4], ['gw', 6]] }, dtype: 'float32', device: 'cpu', type: '[b (gh gw) D]',
      stats: { count: 768, nan: 1, inf: 0, min: -2, max: 2, mean: 0, std: 0.7, subnormal: 0, headroom_bits: 127 },
      percentiles: [-1.9, 1.9], histogram: { min: -1.9, max: 1.9, counts: [1, 3, 8, 20, 40, 60, 80, 90, 90, 80, 60, 40, 20, 8, 3, 1], below: 3, above: 4 },
      checks: [{ check: 'no NaN or ±∞', ok: false, count: 1, first: [0, 9, 5] }],
    },
  },
  labels: {
    expression: 'labels',
    summary: {
      shape: [2, 16, 24], axes: ['b', 'n', 'm'], dtype: 'int64', device: 'cpu', type: '[b n m] Index[C]', domain: 'Index', domain_size: 5, range: [0, 4],
      stats: { count: 768, nan: 0, inf: 0, min: 0, max: 7, mean: 2, std: 1.4 },
      percentiles: [0, 4], histogram: { min: 0, max: 7, counts: [150, 0, 150, 0, 150, 0, 150, 0, 150, 0, 0, 0, 0, 0, 0, 1] },
      checks: [{ check: 'no NaN or ±∞', ok: true, count: 0, first: null }, { check: 'every value is a whole number in [0, 5)', ok: false, count: 1, first: [0, 3, 20] }],
    },
  },
  acts: {
    expression: 'acts',
    summary: {
      shape: [64, 96], axes: ['n', 'D'], dtype: 'float32', device: 'cpu', type: '[n D]',
      stats: { count: 6144, nan: 0, inf: 0, min: -2, max: 400, mean: 1.2, std: 18, subnormal: 0, headroom_bits: 119 },
      percentiles: [-1.95, 1.98], histogram: { min: -1.95, max: 1.98, counts: Array.from({ length: 64 }, (_, i) => 60 + Math.round(40 * Math.cos(i / 10))), below: 30, above: 64 },
      checks: [{ check: 'no NaN or ±∞', ok: true, count: 0, first: null }],
    },
  },
};

(async () => {
  const browser = await chromium.launch({ executablePath: cfg.chromium, args: ['--no-sandbox'] });
  const report = { shots: [] };
  try {
    for (const [theme, look] of Object.entries(THEMES)) {
      const context = await browser.newContext({ viewport: { width: 720, height: 640 }, bypassCSP: true });
      const page = await context.newPage();
      page.on('pageerror', (e) => { report.errors = [...(report.errors ?? []), String(e)]; });
      await page.addInitScript(fakeApi, SUMMARIES);
      const show = async (name, expressions) => {
        const file = path.join(os.tmpdir(), `shapescript-tensorview-${process.pid}-${theme}.html`);
        fs.writeFileSync(file, viewHtml('fixed0nce').replace('<body>', `<body class="${look.body}" style="${look.vars}">`));
        await page.goto('file://' + file);
        fs.unlinkSync(file);
        await page.evaluate((n) => { window.__name = n; window.__requests = []; }, name);
        if (expressions) {
          await page.evaluate((e) => window.postMessage({ type: 'tabs', expressions: e, selected: e.indexOf(window.__name) }, '*'), expressions);
        }
        await page.evaluate((m) => window.postMessage({ type: 'show', ...m }, '*'), SUMMARIES[name]);
        await page.waitForTimeout(300);
      };
      const shot = async (label) => {
        const file = path.join(cfg.out, `tensorview-${label}-${theme}.png`);
        await page.screenshot({ path: file });
        report.shots.push(file);
      };
      await show('att');
      report[`att_${theme}`] = await page.evaluate(() => ({
        requests: window.__requests.slice(), checks: document.getElementById('checks').textContent,
        sliders: [...document.querySelectorAll('#sliders span')].map((s) => s.textContent),
      }));
      const box = await page.locator('#heat').boundingBox();
      await page.mouse.move(box.x + 6 + 20 * (box.width / 2 - 9) / 24 + 2, box.y + 14 + 5 * (box.width / 2 - 9) / 24 + 2);
      await page.waitForTimeout(100);
      report[`att_tip_${theme}`] = await page.locator('#tip').textContent();
      await shot('attention');
      await page.locator('#checks a').last().click();
      await page.waitForTimeout(300);
      report[`att_show_${theme}`] = await page.evaluate(() => ({ ...state.view, index: state.index }));
      await shot('attention-show');
      await show('w');
      const wide = await page.evaluate(() => window.__requests.slice());
      const big = await page.locator('#heat').boundingBox();
      for (let i = 0; i < 14; i++) {
        await page.mouse.move(big.x + 120, big.y + 200);
        await page.mouse.wheel(0, -350);
        await page.waitForTimeout(40);
      }
      await page.waitForTimeout(400);
      await page.mouse.move(big.x + 140, big.y + 230);
      await page.waitForTimeout(100);
      report[`w_${theme}`] = {
        first: wide,
        last: await page.evaluate(() => window.__requests.slice(-4)),
        tip: await page.locator('#tip').textContent(),
      };
      await shot('zoomed');
      await show('w');
      await shot('matrix');
      await show('loss');
      report[`loss_${theme}`] = await page.evaluate(() => window.__requests.slice());
      await shot('line');
      await show('img');
      report[`img_${theme}`] = await page.evaluate(() => window.__requests.slice());
      await shot('image');
      await show('tokens', ['att', 'tokens', 'labels']);
      report[`tokens_${theme}`] = {
        requests: await page.evaluate(() => window.__requests.slice()),
        tabs: await page.evaluate(() => [...document.querySelectorAll('.tab')].map((t) => t.textContent)),
        selected: await page.evaluate(() => document.querySelector('.tab.selected')?.textContent),
      };
      const grid = await page.locator('#heat').boundingBox();
      await page.mouse.move(grid.x + 30, grid.y + 30);
      await page.waitForTimeout(100);
      report[`tokens_tip_${theme}`] = await page.locator('#tip').textContent();
      await shot('patches');
      await show('labels', ['att', 'tokens', 'labels']);
      report[`labels_${theme}`] = {
        checks: await page.evaluate(() => document.getElementById('checks').textContent),
        colors: await page.evaluate(() => state.layout.colors),
        pixel: await page.evaluate(() => [...document.getElementById('heat').getContext('2d').getImageData(40, 40, 1, 1).data].slice(0, 3)),
      };
      await shot('index');
      await show('acts');
      report[`acts_${theme}`] = await page.evaluate(() => ({ range: range(), legend: document.getElementById('legend-text').textContent }));
      await shot('percentiles');
      // The legend's ends set the range; a double-click resets it.
      const legend = await page.locator('#legend').boundingBox();
      const ends = await page.evaluate(() => { const { a, b, width } = state.legendScale; const [lo, hi] = range(); return [lo, hi].map((v) => 4 + (width - 8) * (v - a) / (b - a)); });
      await page.mouse.move(legend.x + ends[1], legend.y + 20);
      await page.mouse.down();
      await page.mouse.move(legend.x + (ends[0] + ends[1]) / 2, legend.y + 20, { steps: 4 });
      await page.mouse.up();
      const dragged = await page.evaluate(() => state.userRange);
      await page.mouse.dblclick(legend.x + 20, legend.y + 20);
      report[`legend_${theme}`] = { dragged, reset: await page.evaluate(() => state.userRange) };
      // An axis's role: the mean over b instead of its slider.
      await show('att');
      await page.evaluate(() => { window.__requests = []; });
      await page.locator('#roles select').first().selectOption('mean');
      await page.waitForTimeout(200);
      report[`roles_${theme}`] = {
        requests: await page.evaluate(() => window.__requests.slice()),
        sliders: await page.evaluate(() => [...document.querySelectorAll('#sliders span')].map((x) => x.textContent)),
      };
      await shot('roles');
      await page.evaluate(() => window.postMessage({ type: 'stale' }, '*'));
      await page.waitForTimeout(50);
      report[`stale_${theme}`] = await page.evaluate(() => getComputedStyle(document.getElementById('stale')).display !== 'none');
      const messages = [];
      await page.exposeFunction('__sent', (m) => messages.push(m));
      await show('tokens', ['att', 'tokens', 'labels']);
      await page.evaluate(() => { const post = window.__api.postMessage; window.__api.postMessage = (m) => { window.__sent(m); post(m); }; });
      await page.locator('.tab').nth(2).click();
      await page.locator('.tab a').first().click();
      await page.locator('#expression').fill('tokens[0]');
      await page.locator('#expression').press('Enter');
      await page.waitForTimeout(100);
      report[`sent_${theme}`] = messages.filter((m) => m.type !== 'tile' && m.type !== 'ready');
      await context.close();
    }
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(report));
})().catch((e) => { console.error(e); process.exit(1); });
