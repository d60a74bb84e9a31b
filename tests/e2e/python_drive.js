// python_drive.js -- the browser half of test_vscode_python.py, run by the shared probe
// (vscode_probe.py) in place of its drive.js, with the same config.
//
// One VS Code, in phases (cfg.phases: {prefix, stop_command, stop_typed, installed}), each
// phase's steps named PREFIX-STEP. In each, in app.py, which imports `double` from model.ss
// through its generated module model.py: F12 on `double`, Go Back (Ctrl+Alt+-), Go Forward
// (Ctrl+Shift+-); then model.py opened on purpose from the explorer, F12 and Ctrl-click on
// its own `def double`; then Peek Definition (Ctrl+Shift+F10) in app.py. After each step it
// reads the window's title (the file shown), the cursor and the active group's tabs, and
// takes a screenshot. A phase with a stop_command first runs it from the Command Palette
// (the stand-in Python server's command that takes its answers away) and closes every
// editor (Ctrl+K Ctrl+W). With `installed` (the path of an installed package's layers.ss),
// the phase then goes from uses.ss into that file with F12, types in it, hovers in it and
// reads the Problems panel. Last, the output channel. Writes result.json as drive.js does.
'use strict';
const fs = require('fs');
const path = require('path');
const {
  cfg, since, locate, launch, stepper, statusText, quickPick, goToLine, hoverSettled, openWorkbench, run,
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

  // An installed package's file, opened by going to a definition in it: read-only, no
  // diagnostics, hover still there.
  async function installedSteps(prefix, installedPath) {
    const uses = fs.readFileSync(path.join(cfg.workspace, 'uses.ss'), 'utf8');
    const installed = fs.readFileSync(installedPath, 'utf8');
    const squiggles = () => editor.locator('.squiggly-error').count();
    const visibleText = async () => (await editor.locator('.view-lines').innerText()).replace(/\u00a0/g, ' ');
    const problemRows = async () => {
      await page.keyboard.press('Control+Shift+M');            // Problems panel
      await page.locator('.markers-panel').first().waitFor({ state: 'visible', timeout: cfg.timeout_ms });
      await page.waitForTimeout(500);
      return page.locator('.markers-panel .monaco-list-row').evaluateAll((rows) => rows.map((r) => ({
        text: r.innerText.replace(/\s+/g, ' ').trim(), label: r.getAttribute('aria-label') || '',
      })));
    };

    // The workspace's own file with the error: its squiggle shows, so the server is working.
    await step(`${prefix}-open-importer`, async () => {
      await quickOpen('uses.ss');
      const t = Date.now();
      while (since(t) < cfg.timeout_ms && (await squiggles()) === 0) await page.waitForTimeout(200);
      return { squiggles: await squiggles(), ui_ms: since(t) };
    });

    const call = locate(uses, 'layers.double', 1, 8);
    await step(`${prefix}-definition-installed`, async () => {
      await gotoPos(call);
      const before = await page.title();
      await page.keyboard.press('F12');                        // Go to Definition
      return { at: call, ...(await settle(before)) };
    });

    await step(`${prefix}-installed-read-only`, async () => {
      await page.waitForTimeout(1000);
      const textBefore = await visibleText();
      const squigglesBefore = await squiggles();
      const at = locate(installed, 'return x', 1, 6);
      await gotoPos(at);
      await page.keyboard.type('Z', { delay: 20 });
      const message = page.locator('.monaco-editor-overlaymessage').first();
      const shown = await message.waitFor({ state: 'visible', timeout: 5000 }).then(() => true, () => false);
      const messageText = shown ? (await message.innerText()).trim() : '';
      // The tab's badge: VS Code draws a lock (the codicon lock-small) after a read-only
      // file's name, in a ::after of its label.
      const tab = await page.locator('.editor-group-container.active .tab.active').first().evaluate((el) => {
        const after = getComputedStyle(el.querySelector('.monaco-icon-label'), '::after');
        return { classes: el.className, label: el.getAttribute('aria-label') || '', badge: after.content, badge_font: after.fontFamily };
      });
      return {
        at, typed: 'Z', message: messageText, text_before: textBefore, text_after: await visibleText(),
        tab, squiggles_before: squigglesBefore, squiggles_after: await squiggles(),
      };
    }, `${prefix}-installed-read-only.png`);

    const use = locate(installed, 'x + x', 1, 0);
    await step(`${prefix}-hover-installed`, async () => {
      await editor.click();
      await gotoPos(use);
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+I');                 // Show Hover
      const hover = page.locator('.monaco-hover:not(.hidden) .monaco-hover-content').first();
      await hover.waitFor({ state: 'visible', timeout: cfg.timeout_ms });
      await page.waitForFunction(() => !/Loading/.test(document.querySelector('.monaco-hover:not(.hidden) .monaco-hover-content')?.innerText || 'Loading'),
        null, { timeout: cfg.timeout_ms });
      await hoverSettled(page);
      return { at: use, text: (await hover.innerText()).trim() };
    }, `${prefix}-hover-installed.png`);
    await page.keyboard.press('Escape');

    // Last, once the hover has shown that the server checked the file: had it published the
    // file's error, the squiggle and the Problems row would be there by now.
    await step(`${prefix}-installed-problems`, async () => {
      const rows = await problemRows();
      return { rows, problems_status: await statusText(page, 'status.problems'), squiggles: await squiggles() };
    }, `${prefix}-installed-problems.png`);
  }

  const open = await step('open-workbench', async () => {
    await openWorkbench(page);
    await page.waitForTimeout(1000);
    return {};
  });
  if (!open.ok) return;

  // Runs a command from the Command Palette (F1): `typed` there, then its row, `title`.
  async function runCommand(typed, title) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    await quickPick(page, typed, title);
  }

  async function navigationSteps(prefix, first) {
    await step(`${prefix}-open-app`, async () => {
      await quickOpen('app.py');
      // The extension activates on Python files and starts the server; give it a moment.
      if (first) await page.waitForTimeout(3000);
      return {};
    });

    const use = locate(app, 'print(double', 1, 8);
    await step(`${prefix}-definition`, async () => {
      await gotoPos(use);
      const before = await page.title();
      await page.keyboard.press('F12');                          // Go to Definition
      return { at: use, ...(await settle(before)) };
    });

    await step(`${prefix}-back`, async () => {
      const before = await page.title();
      await page.keyboard.press('Control+Alt+Minus');            // Go Back (Linux)
      return await settle(before);
    });

    await step(`${prefix}-forward`, async () => {
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

    await step(`${prefix}-open-generated`, async () => {
      await clickOpen('.explorer-folders-view .monaco-list-row', 'model.py', true);
      await page.waitForTimeout(2000);                           // a redirect would have come
      return {};
    });

    const declaration = locate(module, 'def double', 1, 5);
    await step(`${prefix}-f12-in-generated`, async () => {
      await gotoPos(declaration);
      const before = await page.title();
      await page.keyboard.press('F12');
      return { at: declaration, ...(await settle(before)) };
    });

    await step(`${prefix}-ctrl-click-in-generated`, async () => {
      await clickOpen(TAB, 'model.py');
      await page.waitForTimeout(500);
      const word = editor.locator('.view-line', { hasText: 'def double' }).locator('span', { hasText: /^double$/ }).first();
      const before = await page.title();
      await word.click({ modifiers: ['Control'] });
      return { title_before: before, ...(await settle(before)) };
    });

    await step(`${prefix}-peek`, async () => {
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
  }

  for (const [index, phase] of (cfg.phases || [{ prefix: 'only' }]).entries()) {
    if (phase.stop_command) {
      const stopped = await step(`${phase.prefix}-stop-python-server`, async () => {
        await runCommand(phase.stop_typed, phase.stop_command);
        await page.keyboard.press('Control+K');
        await page.keyboard.press('Control+W');                  // Close All Editors
        await page.waitForFunction(() => document.querySelectorAll('.editor-group-container .tab').length === 0,
          null, { timeout: cfg.timeout_ms });
        return {};
      });
      if (!stopped.ok) continue;
    }
    await navigationSteps(phase.prefix, index === 0);
    // With `installed` (a package installed in the workspace's Python, whose layers.ss has
    // one deliberate error, and uses.ss importing it with the same error): F12 from uses.ss
    // into the installed layers.ss, a key typed in it, the Problems panel and a hover there.
    if (phase.installed) await installedSteps(phase.prefix, phase.installed);
  }

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
