// tensorview_debug_drive.js -- replaces the probe's drive.js for the Tensor view's real
// debugging run: opens model.ss, sets a breakpoint on cfg.breakpoint_line (F9), starts the
// workspace's launch configuration (F5), waits until the program stops there, runs View
// Tensor from the Command Palette for each of cfg.expressions, and reads the Tensor view's
// page (a webview, in frames of its own): its title, tabs and checks. Writes result.json
// with one step each, as drive.js does, and a screenshot after each step.
'use strict';
const path = require('path');
const { cfg, since, launch, stepper, quickPick, goToLine, openSteps, run } = require('./drive_common');

run(async () => {
  const page = await launch({ width: 1400, height: 900 });
  const editor = page.locator('.editor-group-container.active .monaco-editor').first();
  const step = stepper(page, { shotName: (name) => `${cfg.shot_prefix || ''}${name}.png` });

  /** The Tensor view's page: the webview frame that has its checks. */
  async function tensorFrame(wanted) {
    const t = Date.now();
    while (since(t) < cfg.timeout_ms * 2) {
      for (const frame of page.frames()) {
        try {
          const found = await frame.evaluate(() => {
            const checks = document.getElementById('checks');
            return checks ? {
              title: document.getElementById('title').textContent,
              tabs: [...document.querySelectorAll('.tab')].map((x) => x.textContent),
              checks: checks.textContent,
              error: document.getElementById('error').textContent,
              roles: [...document.querySelectorAll('#roles select')].map((x) => x.value),
            } : null;
          });
          if (found && wanted(found)) return found;
        } catch (e) { /* a frame that went away */ }
      }
      await page.waitForTimeout(300);
    }
    throw new Error('the Tensor view never showed it');
  }

  async function palette(command) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    await quickPick(page, command, command);
  }

  const { opened } = await openSteps(step, page, editor);
  if (!opened || !opened.ok) return;

  const stopped = await step('stop-at-breakpoint', async () => {
    await editor.click();
    await goToLine(page, cfg.breakpoint_line, 300);
    await page.keyboard.press('F9');
    await page.locator('.codicon-debug-breakpoint').first().waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await page.keyboard.press('F5');
    // The program is stopped when the editor marks the top frame's line.
    await page.locator('.codicon-debug-stackframe').first().waitFor({ state: 'visible', timeout: cfg.timeout_ms * 3 });
    const frames = await page.locator('.debug-call-stack .monaco-list-row').allInnerTexts().catch(() => []);
    return { call_stack: frames.slice(0, 4) };
  });
  if (!stopped.ok) return;

  // Room for the Tensor view: fold Variables, Watch and Breakpoints.
  for (const title of ['Variables', 'Watch', 'Breakpoints']) {
    await page.locator('.pane-header', { hasText: new RegExp('^' + title, 'i') }).first().click().catch(() => {});
  }
  for (const [expression, expect] of cfg.expressions) {
    await step(`view-${expression}`, async () => {
      await palette('View Tensor');
      const box = page.locator('.quick-input-widget input');
      await page.waitForTimeout(300);
      await box.waitFor({ state: 'visible', timeout: cfg.timeout_ms });
      await page.keyboard.type(expression);
      await page.keyboard.press('Enter');
      const seen = await tensorFrame((found) => found.title.startsWith(expression + ':') && found.checks.includes(expect));
      return seen;
    });
    if (expression === cfg.follow) {
      // Another frame in Call Stack: the view shows the expression there, then back.
      await step('follow-frame', async () => {
        await page.locator('.debug-call-stack .monaco-list-row', { hasText: 'main.py' }).first().click();
        const python = await tensorFrame((found) => found.title.startsWith(expression + ': [2 3 4]'));
        await page.locator('.debug-call-stack .monaco-list-row', { hasText: 'model.ss' }).first().click();
        const back = await tensorFrame((found) => found.title.startsWith(expression + ': [b n m]'));
        return { python: python.title, back: back.title };
      });
    }
  }

  await step('stop-debugging', async () => {
    // The Tensor view with the room of the side bar: Call Stack folded too, then each tab.
    await page.locator('.pane-header', { hasText: /^Call Stack/i }).first().click().catch(() => {});
    await page.waitForTimeout(1500);
    const side = page.locator('[id="workbench.parts.sidebar"]');
    await side.screenshot({ path: path.join(cfg.out_dir, `${cfg.shot_prefix || ''}sidebar-t.png`) }).catch(() => {});
    for (const frame of page.frames()) {
      const tab = frame.locator('.tab', { hasText: 'att' });
      if (await tab.count().catch(() => 0)) {
        await tab.first().click();
        break;
      }
    }
    await tensorFrame((found) => found.title.startsWith('att: [b n m]'));
    await page.waitForTimeout(1500);
    await side.screenshot({ path: path.join(cfg.out_dir, `${cfg.shot_prefix || ''}sidebar-att.png`) }).catch(() => {});
    await page.keyboard.press('Shift+F5');
    await page.locator('.codicon-debug-stackframe').first().waitFor({ state: 'hidden', timeout: cfg.timeout_ms });
    return {};
  });
});
