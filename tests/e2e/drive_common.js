// drive_common.js -- what every drive script here shares: the set-up and the steps of the
// shared probe's drive.js (../shared/clients/vscode_probe/drive.js) that each of them
// repeated. A script here replaces drive.js for one test, with drive.js's config
// (process.argv[2]) and result.json.
//
// The probe runs a replacement from a copy of it in a scratch folder (see test_vscode.py's
// runner), so that runner copies this file beside it; playwright-core is found through
// NODE_PATH, which the probe sets.
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = { steps: [], console_errors: [] };
const T0 = Date.now();
const since = (t) => Date.now() - t;
let browser = null;

function save() {
  out.total_ms = since(T0);
  fs.writeFileSync(path.join(cfg.out_dir, 'result.json'), JSON.stringify(out, null, 2));
}

/** 1-based line/column of the n-th occurrence of `find` (+offset) in the text. */
function locate(text, find, occurrence = 1, offset = 0) {
  const lines = text.split('\n');
  let seen = 0;
  for (let i = 0; i < lines.length; i++) {
    let from = 0;
    for (;;) {
      const j = lines[i].indexOf(find, from);
      if (j < 0) break;
      if (++seen === occurrence) return { line: i + 1, column: j + 1 + offset };
      from = j + 1;
    }
  }
  throw new Error(`text ${JSON.stringify(find)} (occurrence ${occurrence}) not found`);
}

/** Headless Chromium with a page of the given size; the page's console errors go to result.json. */
async function launch(viewport) {
  browser = await chromium.launchPersistentContext(cfg.browser_profile, {
    executablePath: cfg.chromium,
    headless: true,
    viewport,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = browser.pages()[0] || await browser.newPage();
  page.on('console', (m) => { if (m.type() === 'error') out.console_errors.push(m.text().slice(0, 300)); });
  return page;
}

/**
 * A `step(name, fn, shot)` that runs fn, records what it returns (or its error) as one of
 * result.json's steps, with `after()`'s fields added, and takes a screenshot named `shot`,
 * or `shotName(name, index)`: by default drive.js's `NN-name.png`.
 */
function stepper(page, { shotName = (name, index) => `${String(index).padStart(2, '0')}-${name}.png`, after = null } = {}) {
  return async function step(name, fn, shot) {
    const t = Date.now();
    const rec = { name };
    try {
      Object.assign(rec, await fn());
      rec.ok = rec.ok !== false;
    } catch (e) {
      rec.ok = false;
      rec.error = String(e && e.message || e).split('\n')[0];
    }
    if (after) { try { Object.assign(rec, await after()); } catch (e) { /* page gone */ } }
    rec.ms = since(t);
    const file = path.join(cfg.out_dir, shot || shotName(name, out.steps.length));
    try { await page.screenshot({ path: file }); rec.screenshot = path.basename(file); } catch (e) { /* page gone */ }
    out.steps.push(rec);
    save();
    return rec;
  };
}

/** A status bar item's text (its aria-label where it has one), or null when it isn't shown. */
async function statusText(page, id) {
  const el = page.locator(`[id="${id}"]`);
  if (await el.count() === 0) return null;
  return ((await el.first().getAttribute('aria-label')) || (await el.first().innerText())).trim();
}

/** In a quick input just opened: types `typed`, waits for a row with `row` and takes it. */
async function quickPick(page, typed, row) {
  await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: cfg.timeout_ms });
  await page.keyboard.type(typed);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: row })
    .first().waitFor({ state: 'visible', timeout: cfg.timeout_ms });
  await page.keyboard.press('Enter');
}

/**
 * Go to Line/Column (Ctrl+G) with `target` ("LINE" or "LINE:COLUMN"); returns once the box
 * has closed and the status bar shows the cursor there (5 s at most: a column past the
 * line's end puts it at the end), then after `pauseMs`.
 */
async function goToLine(page, target, pauseMs = 0) {
  await page.keyboard.press('Control+G');
  await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: 5000 });
  await page.keyboard.type(String(target));
  await page.keyboard.press('Enter');
  const [line, column] = String(target).split(':');
  const cursor = column ? `^Ln ${line}, Col ${column}\\b` : `^Ln ${line}\\b`;
  await page.waitForFunction((pattern) => {
    const box = document.querySelector('.quick-input-widget');
    const el = document.getElementById('status.editor.selection');
    const shown = el ? (el.getAttribute('aria-label') || el.innerText).trim() : '';
    return (!box || box.offsetParent === null || getComputedStyle(box).display === 'none')
      && new RegExp(pattern).test(shown);
  }, cursor, { timeout: 5000 }).catch(() => {});
  if (pauseMs) await page.waitForTimeout(pauseMs);
}

/** Waits until the hover shown has stopped moving: fully opaque, no animation running. */
async function hoverSettled(page) {
  await page.waitForFunction(() => {
    const box = document.querySelector('.monaco-hover:not(.hidden)');
    if (!box) return false;
    for (let e = box; e; e = e.parentElement) if (getComputedStyle(e).opacity !== '1') return false;
    return box.getAnimations({ subtree: true }).every((a) => a.playState !== 'running');
  }, null, { timeout: 2000 }).catch(() => {});
}

/** Opens the workspace folder and waits for the workbench and its status bar. */
async function openWorkbench(page) {
  await page.goto(`${cfg.url}/?folder=${encodeURIComponent(cfg.workspace)}`, { waitUntil: 'domcontentloaded' });
  await page.locator('.monaco-workbench').waitFor({ timeout: cfg.timeout_ms * 4 });
  await page.locator('[id="workbench.parts.statusbar"]').waitFor({ timeout: cfg.timeout_ms });
}

/** Opens cfg.file with Quick Open (Ctrl+P), once it is listed, and waits for its text in `editor`. */
async function openFile(page, editor) {
  await page.waitForTimeout(1000);
  await page.keyboard.press('Control+P');
  await quickPick(page, cfg.file, path.basename(cfg.file));
  await editor.locator('.view-lines').waitFor({ timeout: cfg.timeout_ms });
}

/**
 * drive.js's first two steps: 'open-workbench', then (if it went well) 'open-file', which
 * records `more()`'s fields too. Returns both steps' records (`opened` null if not run).
 */
async function openSteps(step, page, editor, more = async () => ({})) {
  const open = await step('open-workbench', async () => {
    await openWorkbench(page);
    return {};
  });
  if (!open.ok) return { open, opened: null };
  const opened = await step('open-file', async () => {
    await openFile(page, editor);
    return more();
  });
  return { open, opened };
}

/** Runs `main`, then saves result.json, closes the browser (5 s at most) and exits 0. */
function run(main) {
  main()
    .catch((e) => { out.error = String(e && e.stack || e).slice(0, 2000); })
    .finally(async () => {
      save();
      if (browser) await Promise.race([browser.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
      process.exit(0);
    });
}

module.exports = {
  cfg, since, locate, launch, stepper, statusText, quickPick, goToLine, hoverSettled, openWorkbench, openFile,
  openSteps, run,
};
