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
const {
  cfg, since, locate, launch, stepper, statusText, quickPick, goToLine, openWorkbench, run,
} = require('./drive_common');

run(async () => {
  const app = fs.readFileSync(path.join(cfg.workspace, 'app.py'), 'utf8');
  const module = fs.readFileSync(path.join(cfg.workspace, 'model.py'), 'utf8');
  const page = await launch({ width: 1280, height: 800 });
  const editor = page.locator('.editor-group-container.active .monaco-editor').first();
  const TAB = '.editor-group-container.active .tab';

  async function where() {
    const cursor = await statusText(page, 'status.editor.selection');
    const tabs = await page.locator('.editor-group-container.active .tab .label-name').allInnerTexts();
    return { title: await page.title(), cursor, tabs: tabs.map((t) => t.trim()) };
  }

  const step = stepper(page, { after: where });

  async function gotoPos(at) {
    await editor.click();
    await goToLine(page, `${at.line}:${at.column}`);          // Go to Line/Column
  }

  async function quickOpen(file) {
    await page.keyboard.press('Control+P');
    await quickPick(page, file, file);
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
    await openWorkbench(page);
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

  const use = locate(app, 'print(double', 1, 8);
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

  const declaration = locate(module, 'def double', 1, 5);
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
});
