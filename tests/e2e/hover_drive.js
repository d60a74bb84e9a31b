// hover_drive.js -- replaces the probe's drive.js for test_vscode.py's picture test.
//
// Opens the workspace and the file as a person would (Quick Open). Then, for each theme in
// cfg.themes ({prefix, theme, label, kind}: VS Code starts in the first, from its settings),
// it switches to that theme with Ctrl+K Ctrl+T (after the first) and, for each hover in
// cfg.hovers, puts the cursor there, asks for the hover (Ctrl+K Ctrl+I), waits for its
// images to load, and saves a screenshot of the page and one of each image as it is shown
// on screen, named after the theme's prefix. Writes result.json with a step per theme
// (`theme-PREFIX`, the workbench's class) and per hover (`PREFIX-hover-NAME`), as drive.js
// does; one VS Code serves both themes, so the pictures also show that the server follows
// a theme changed while it runs.
'use strict';
const fs = require('fs');
const path = require('path');
const {
  cfg, since, locate, launch, stepper, quickPick, goToLine, hoverSettled, openSteps, run,
} = require('./drive_common');

run(async () => {
  const fileText = fs.readFileSync(path.join(cfg.workspace, cfg.file), 'utf8');
  const page = await launch({ width: 1400, height: 900 });
  const editor = page.locator('.editor-group-container.active .monaco-editor').first();
  const step = stepper(page, { shotName: (name) => `${name}.png` });
  const workbenchClass = () => page.locator('.monaco-workbench').first().getAttribute('class');

  const { opened } = await openSteps(step, page, editor, async () => ({ workbench_class: await workbenchClass() }));
  if (!opened || !opened.ok) return;

  for (const [index, { prefix, theme, label, kind }] of (cfg.themes || []).entries()) {
    const switched = await step(`theme-${prefix}`, async () => {
      if (index > 0) {
        await page.keyboard.press('Escape');
        await page.keyboard.press('Control+K');
        await page.keyboard.press('Control+T');                 // Preferences: Color Theme
        await quickPick(page, label, label);                    // the picker's name for it
      }
      // The workbench's class names the kind of theme applied (vs, vs-dark).
      await page.waitForFunction((k) => document.querySelector('.monaco-workbench')?.classList.contains(k),
        kind, { timeout: cfg.timeout_ms });
      return { theme, workbench_class: await workbenchClass() };
    });
    if (switched.ok) await hoverSteps(prefix);
  }
  await page.keyboard.press('Escape');

  async function hoverSteps(prefix) {
    for (const hover of cfg.hovers || []) {
      const at = locate(fileText, hover.find, hover.occurrence || 1, hover.offset || 0);
      await step(`${prefix}-hover-${hover.name}`, async () => {
        // The server may still be starting: ask again until the hover shows an image.
        let images = [];
        let text = '';
        const t = Date.now();
        while (since(t) < cfg.timeout_ms * 2) {
          await page.keyboard.press('Escape');
          await editor.click();
          await goToLine(page, `${at.line}:${at.column}`);
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
          await hoverSettled(page);                             // the fade-in, for the screenshots
          text = (await widget.innerText()).trim();
          // The whole hover too, from its top, to see how its parts sit together at the size
          // shown: the box VS Code draws, so that taking it scrolls nothing.
          await widget.evaluate((e) => { for (let p = e; p; p = p.parentElement) p.scrollTop = 0; });
          const box = page.locator('.monaco-hover:not(.hidden)').first();
          await box.screenshot({ path: path.join(cfg.out_dir, `${prefix}-${hover.name}-hover.png`) });
          const found = widget.locator('img');
          const count = await found.count();
          images = [];
          for (let i = 0; i < count; i++) {
            const img = found.nth(i);
            const file = `${prefix}-${hover.name}-image${i}.png`;
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
  }
});
