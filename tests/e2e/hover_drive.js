// hover_drive.js -- replaces the probe's drive.js for test_vscode.py's picture test.
//
// Opens the workspace and the file as a person would (Quick Open), then, for each hover in
// cfg.hovers, puts the cursor there, asks for the hover (Ctrl+K Ctrl+I), waits for its
// images to load, and saves a screenshot of the page and one of each image as it is shown
// on screen. Writes result.json with one step per hover, as drive.js does.
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

async function main() {
  const fileText = fs.readFileSync(path.join(cfg.workspace, cfg.file), 'utf8');
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
  const prefix = cfg.shot_prefix || '';

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
    const shot = path.join(cfg.out_dir, `${prefix}${name}.png`);
    try { await page.screenshot({ path: shot }); rec.screenshot = path.basename(shot); } catch (e) { /* page gone */ }
    out.steps.push(rec);
    save();
    return rec;
  }

  async function gotoPos(line, column) {
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: 5000 });
    await page.keyboard.type(`${line}:${column}`);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(200);
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
    const workbench = await page.locator('.monaco-workbench').first().getAttribute('class');
    return { workbench_class: workbench };
  });
  if (!opened.ok) return;

  for (const hover of cfg.hovers || []) {
    const at = locate(fileText, hover.find, hover.occurrence || 1, hover.offset || 0);
    await step(`hover-${hover.name}`, async () => {
      // The server may still be starting: ask again until the hover shows an image.
      let images = [];
      let text = '';
      const t = Date.now();
      while (since(t) < cfg.timeout_ms * 2) {
        await page.keyboard.press('Escape');
        await editor.click();
        await gotoPos(at.line, at.column);
        await page.keyboard.press('Control+K');
        await page.keyboard.press('Control+I');
        const widget = page.locator('.monaco-hover:not(.hidden) .monaco-hover-content').first();
        try {
          await widget.waitFor({ state: 'visible', timeout: 5000 });
          await page.waitForFunction(() => {
            const el = document.querySelector('.monaco-hover:not(.hidden) .monaco-hover-content');
            if (!el || /Loading/.test(el.innerText)) return false;
            const imgs = [...el.querySelectorAll('img')];
            return imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth > 0);
          }, null, { timeout: 5000 });
        } catch (e) {
          await page.waitForTimeout(500);
          continue;
        }
        await page.waitForTimeout(400);                       // the fade-in, for the screenshots
        text = (await widget.innerText()).trim();
        const found = widget.locator('img');
        const count = await found.count();
        images = [];
        for (let i = 0; i < count; i++) {
          const img = found.nth(i);
          const file = `${prefix}${hover.name}-image${i}.png`;
          await img.screenshot({ path: path.join(cfg.out_dir, file) });
          images.push({
            file,
            ...(await img.evaluate((e) => ({
              natural: [e.naturalWidth, e.naturalHeight],
              shown: [e.getBoundingClientRect().width, e.getBoundingClientRect().height],
              alt: e.alt,
            }))),
          });
        }
        break;
      }
      return { at, ok: images.length > 0, text, images, ui_ms: since(t) };
    });
  }
  await page.keyboard.press('Escape');
}

main()
  .catch((e) => { out.error = String(e && e.stack || e); })
  .finally(async () => {
    save();
    if (browser) await Promise.race([browser.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
    process.exit(0);
  });
