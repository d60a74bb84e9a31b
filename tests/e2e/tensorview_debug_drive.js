// tensorview_debug_drive.js -- replaces the probe's drive.js for the Tensor view's real
// debugging run: opens model.ss, sets a breakpoint on cfg.breakpoint_line (F9), starts the
// workspace's launch configuration (F5), waits until the program stops there, runs View
// Tensor from the Command Palette for each of cfg.expressions, and reads the Tensor view's
// page (a webview, in frames of its own): its title, tabs and checks. Writes result.json
// with one step each, as drive.js does, and a screenshot after each step.
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

async function main() {
  browser = await chromium.launchPersistentContext(cfg.browser_profile, {
    executablePath: cfg.chromium,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = browser.pages()[0] || await browser.newPage();
  page.on('console', (m) => { if (m.type() === 'error') out.console_errors.push(m.text().slice(0, 300)); });
  const editor = page.locator('.editor-group-container.active .monaco-editor').first();

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
    rec.ms = since(t);
    const shot = path.join(cfg.out_dir, `${cfg.shot_prefix || ''}${name}.png`);
    try { await page.screenshot({ path: shot }); rec.screenshot = path.basename(shot); } catch (e) { /* page gone */ }
    out.steps.push(rec);
    save();
    return rec;
  }

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
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await page.keyboard.type(command);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: command }).first().waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await page.keyboard.press('Enter');
  }

  const open = await step('open-workbench', async () => {
    await page.goto(`${cfg.url}/?folder=${encodeURIComponent(cfg.workspace)}`, { waitUntil: 'domcontentloaded' });
    await page.locator('.monaco-workbench').waitFor({ timeout: cfg.timeout_ms * 4 });
    await page.locator('[id="workbench.parts.statusbar"]').waitFor({ timeout: cfg.timeout_ms });
    return {};
  });
  if (!open.ok) return;

  const opened = await step('open-file', async () => {
    await page.waitForTimeout(1000);
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await page.keyboard.type(cfg.file);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: path.basename(cfg.file) })
      .first().waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await page.keyboard.press('Enter');
    await editor.locator('.view-lines').waitFor({ timeout: cfg.timeout_ms });
    return {};
  });
  if (!opened.ok) return;

  const stopped = await step('stop-at-breakpoint', async () => {
    await editor.click();
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: 5000 });
    await page.keyboard.type(String(cfg.breakpoint_line));
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
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
}

main()
  .catch((e) => { out.error = String(e && e.stack || e); })
  .finally(async () => {
    save();
    if (browser) await Promise.race([browser.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
    process.exit(0);
  });
