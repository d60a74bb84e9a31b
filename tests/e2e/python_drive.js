// python_drive.js -- the browser half of test_vscode_python.py, run by the shared probe
// (vscode_probe.py) in place of its drive.js, with the same config.
//
// In app.py, which imports `double` from model.ss through its generated module model.py:
// F12 on `double`, Go Back (Ctrl+Alt+-), Go Forward (Ctrl+Shift+-); then model.py opened on
// purpose from the explorer, F12 and Ctrl-click on its own `def double`; then Peek
// Definition (Ctrl+Shift+F10) in app.py. After each step it reads the window's title (the file shown), the
// cursor and the active group's tabs, and takes a screenshot. Writes result.json as
// drive.js does.
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

// 1-based line/column of the first occurrence of `find` (+offset) in the file
function locate(text, find, offset = 0) {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const j = lines[i].indexOf(find);
    if (j >= 0) return { line: i + 1, column: j + 1 + offset };
  }
  throw new Error(`text ${JSON.stringify(find)} not found`);
}

async function main() {
  const app = fs.readFileSync(path.join(cfg.workspace, 'app.py'), 'utf8');
  const module = fs.readFileSync(path.join(cfg.workspace, 'model.py'), 'utf8');
  browser = await chromium.launchPersistentContext(cfg.browser_profile, {
    executablePath: cfg.chromium,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = browser.pages()[0] || await browser.newPage();
  page.on('console', (m) => { if (m.type() === 'error') out.console_errors.push(m.text().slice(0, 300)); });
  const editor = page.locator('.editor-group-container.active .monaco-editor').first();
  const TAB = '.editor-group-container.active .tab';

  async function where() {
    const el = page.locator('[id="status.editor.selection"]');
    const cursor = await el.count() === 0 ? null
      : ((await el.first().getAttribute('aria-label')) || (await el.first().innerText())).trim();
    const tabs = await page.locator('.editor-group-container.active .tab .label-name').allInnerTexts();
    return { title: await page.title(), cursor, tabs: tabs.map((t) => t.trim()) };
  }

  async function step(name, fn) {
    const t = Date.now();
    const rec = { name };
    try {
      Object.assign(rec, await fn());
      rec.ok = rec.ok !== false;
    } catch (e) {
      rec.ok = false;
      rec.error = String(e && e.message || e).split('\n')[0];
    }
    try { Object.assign(rec, await where()); } catch (e) { /* page gone */ }
    rec.ms = since(t);
    const shot = path.join(cfg.out_dir, `${String(out.steps.length).padStart(2, '0')}-${name}.png`);
    try { await page.screenshot({ path: shot }); rec.screenshot = path.basename(shot); } catch (e) { /* page gone */ }
    out.steps.push(rec);
    save();
    return rec;
  }

  async function gotoPos(at) {
    await editor.click();
    await page.keyboard.press('Control+G');                    // Go to Line/Column
    await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: 5000 });
    await page.keyboard.type(`${at.line}:${at.column}`);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(200);
  }

  async function quickOpen(file) {
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await page.keyboard.type(file);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: file })
      .first().waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await page.keyboard.press('Enter');
    await page.waitForFunction((f) => document.title.startsWith(f), file, { timeout: cfg.timeout_ms });
    await page.waitForTimeout(500);
  }

  // Waits for the window's title to change from `before`, then lets a redirect settle: an
  // editor that lands on model.py is replaced a moment later.
  async function settle(before) {
    const t = Date.now();
    while (since(t) < cfg.timeout_ms && (await page.title()) === before) await page.waitForTimeout(100);
    const ui = since(t);
    await page.waitForTimeout(2000);
    return { ui_ms: ui };
  }

  const open = await step('open-workbench', async () => {
    await page.goto(`${cfg.url}/?folder=${encodeURIComponent(cfg.workspace)}`, { waitUntil: 'domcontentloaded' });
    await page.locator('.monaco-workbench').waitFor({ timeout: cfg.timeout_ms * 4 });
    await page.locator('[id="workbench.parts.statusbar"]').waitFor({ timeout: cfg.timeout_ms });
    await page.waitForTimeout(1000);
    return {};
  });
  if (!open.ok) return;

  await step('open-app', async () => {
    await quickOpen('app.py');
    // The extension activates on Python files and starts the server; give it a moment.
    await page.waitForTimeout(3000);
    return {};
  });

  const use = locate(app, 'print(double', 8);
  await step('definition', async () => {
    await gotoPos(use);
    const before = await page.title();
    await page.keyboard.press('F12');                          // Go to Definition
    return { at: use, ...(await settle(before)) };
  });

  await step('back', async () => {
    const before = await page.title();
    await page.keyboard.press('Control+Alt+Minus');            // Go Back (Linux)
    return await settle(before);
  });

  await step('forward', async () => {
    const before = await page.title();
    await page.keyboard.press('Control+Shift+Minus');          // Go Forward (Linux)
    return await settle(before);
  });

  // Opens a file by a click, as a person does: on its tab, or a double-click on its row in
  // the explorer (a single click opens a preview, which the next editor opened replaces).
  async function clickOpen(where, file, twice = false) {
    const target = page.locator(where, { hasText: file }).first();
    await (twice ? target.dblclick() : target.click());
    await page.waitForFunction((f) => document.title.startsWith(f), file, { timeout: cfg.timeout_ms });
  }

  await step('open-generated', async () => {
    await clickOpen('.explorer-folders-view .monaco-list-row', 'model.py', true);
    await page.waitForTimeout(2000);                           // a redirect would have come
    return {};
  });

  const declaration = locate(module, 'def double', 5);
  await step('f12-in-generated', async () => {
    await gotoPos(declaration);
    const before = await page.title();
    await page.keyboard.press('F12');
    return { at: declaration, ...(await settle(before)) };
  });

  await step('ctrl-click-in-generated', async () => {
    await clickOpen(TAB, 'model.py');
    await page.waitForTimeout(500);
    const word = editor.locator('.view-line', { hasText: 'def double' }).locator('span', { hasText: /^double$/ }).first();
    const before = await page.title();
    await word.click({ modifiers: ['Control'] });
    return { title_before: before, ...(await settle(before)) };
  });

  await step('peek', async () => {
    await clickOpen(TAB, 'app.py');
    await gotoPos(use);
    await page.keyboard.press('Control+Shift+F10');            // Peek Definition (Linux)
    const peek = page.locator('.peekview-widget').first();
    await peek.waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await page.waitForTimeout(1000);
    const head = (await peek.locator('.head').innerText().catch(() => '')).replace(/\s+/g, ' ').trim();
    return { peek_title: head };
  });
  await page.keyboard.press('Escape');

  await step('output-channel', async () => {
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: 5000 });
    await page.keyboard.type('Output: Show Output Channels');
    await page.waitForTimeout(400);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(400);
    await page.keyboard.type(cfg.output_channel || 'ShapeScript');
    await page.waitForTimeout(400);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(1000);
    const text = await page.locator('.panel .monaco-editor .view-lines').first().innerText().catch(() => '');
    return { text: text.replace(/\u00a0/g, ' ').trim().slice(-1500) };
  });
}

main()
  .catch((e) => { out.error = String(e && e.stack || e); })
  .finally(async () => {
    save();
    if (browser) await Promise.race([browser.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
    process.exit(0);
  });
