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
function fakeApi() {
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
  function tile(name, q) {
    const { data } = tensors[name];
    const shape = tensors[name].shape.length === 1 ? [1, tensors[name].shape[0]] : tensors[name].shape;
    const dims = shape.length;
    const rows = Number(q.rows), cols = Number(q.cols);
    const at = String(q.at).split(',').filter((s) => s !== '').map(Number);
    const rest = shape.map((_, i) => i).filter((i) => i !== rows && i !== cols);
    const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
    let base = 0; rest.forEach((axis, k) => { base += (at[k] ?? 0) * strides[axis]; });
    const rs = Number(q.row_step), cs = Number(q.col_step), r0 = Number(q.row), c0 = Number(q.col);
    const nr = Math.min(256, Math.ceil((shape[rows] - r0) / rs)), nc = Math.min(256, Math.ceil((shape[cols] - c0) / cs));
    const grid = () => Array.from({ length: nr }, () => new Array(nc).fill(null));
    const out = { rows: nr, cols: nc, row: r0, col: c0, row_step: rs, col_step: cs, mean: grid(), min: grid(), max: grid(), nan: grid(), inf: grid() };
    for (let i = 0; i < nr; i++) for (let j = 0; j < nc; j++) {
      let sum = 0, count = 0, lo = Infinity, hi = -Infinity, nan = 0, inf = 0;
      for (let r = r0 + i * rs; r < Math.min(shape[rows], r0 + (i + 1) * rs); r++) for (let c = c0 + j * cs; c < Math.min(shape[cols], c0 + (j + 1) * cs); c++) {
        const v = data[base + r * strides[rows] + c * strides[cols]];
        if (Number.isNaN(v)) nan++; else if (!Number.isFinite(v)) inf++; else { sum += v; count++; lo = Math.min(lo, v); hi = Math.max(hi, v); }
      }
      out.mean[i][j] = count ? sum / count : null; out.min[i][j] = count ? lo : null; out.max[i][j] = count ? hi : null;
      out.nan[i][j] = nan; out.inf[i][j] = inf;
    }
    if (name === 'att' && cols === dims - 1) {
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
  window.acquireVsCodeApi = () => ({
    postMessage(message) {
      window.__requests.push(message.query);
      setTimeout(() => window.postMessage({ type: 'tile', key: message.key, tile: tile(window.__name, message.query) }, '*'), 0);
    },
  });
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
};

(async () => {
  const browser = await chromium.launch({ executablePath: cfg.chromium, args: ['--no-sandbox'] });
  const report = { shots: [] };
  try {
    for (const [theme, look] of Object.entries(THEMES)) {
      const context = await browser.newContext({ viewport: { width: 720, height: 640 }, bypassCSP: true });
      const page = await context.newPage();
      page.on('pageerror', (e) => { report.errors = [...(report.errors ?? []), String(e)]; });
      await page.addInitScript(fakeApi);
      const show = async (name) => {
        const file = path.join(os.tmpdir(), `shapescript-tensorview-${process.pid}-${theme}.html`);
        fs.writeFileSync(file, viewHtml('fixed0nce').replace('<body>', `<body class="${look.body}" style="${look.vars}">`));
        await page.goto('file://' + file);
        fs.unlinkSync(file);
        await page.evaluate((n) => { window.__name = n; window.__requests = []; }, name);
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
      await context.close();
    }
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(report));
})().catch((e) => { console.error(e); process.exit(1); });
