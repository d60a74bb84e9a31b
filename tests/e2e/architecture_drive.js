// architecture_drive.js -- the browser half of test_vscode_architecture.py, run by the
// shared probe (vscode_probe.py) in place of its drive.js, with the same config.
//
// Opens examples/gpt.ss, clicks the model's name, waits for the Architecture tab, reads
// the SVG inside its webview, clicks the attention box and reads the editor's selection,
// and takes screenshots in a dark and a light theme. Writes result.json as drive.js does.
'use strict';
const { cfg, launch, stepper, statusText, quickPick, openSteps, run } = require('./drive_common');

run(async () => {
  const page = await launch({ width: 1440, height: 900 });
  const editor = page.locator('.editor-group-container .monaco-editor').first();
  const step = stepper(page);

  async function webviewFrame() {
    for (let i = 0; i < 120; i++) {
      for (const frame of page.frames()) {
        try {
          if (await frame.locator('#drawing svg').count() > 0) return frame;
        } catch (e) { /* a frame that went away */ }
      }
      await page.waitForTimeout(250);
    }
    throw new Error('no webview with a drawing');
  }

  const selectionText = () => statusText(page, 'status.editor.selection');

  const { open } = await openSteps(step, page, editor, async () => {
    await page.waitForFunction(() => document.querySelector('.editor-group-container .view-lines')?.innerText.includes('model Gpt'),
      null, { timeout: cfg.timeout_ms });
    return {};
  });
  if (!open.ok) return;

  // Let the server start and check the file before the click.
  await page.waitForTimeout(4000);

  await step('click-model-name', async () => {
    const line = editor.locator('.view-line', { hasText: 'model Gpt:' }).first();
    await line.waitFor({ timeout: cfg.timeout_ms });
    const name = line.locator('span', { hasText: /^Gpt$/ }).first();
    if (await name.count() > 0) {
      await name.click();
    } else {
      const box = await line.boundingBox();
      await page.mouse.click(box.x + 60, box.y + box.height / 2);
    }
    const tab = page.locator('.tab', { hasText: 'Architecture: Gpt' }).first();
    await tab.waitFor({ state: 'visible', timeout: cfg.timeout_ms * 2 });
    const frame = await webviewFrame();
    await frame.locator('#drawing g[data-node]').first().waitFor({ timeout: cfg.timeout_ms });
    await page.waitForTimeout(800);
    const svg = await frame.locator('#drawing svg').evaluate((el) => el.outerHTML);
    const texts = await frame.locator('#drawing svg text').evaluateAll((els) => els.map((e) => e.textContent));
    const summary = await frame.locator('#summary').innerText();
    const links = await frame.locator('#links a').allInnerTexts();
    const focused = await page.evaluate(() => !!document.activeElement?.closest('.monaco-editor'));
    return { tab: (await tab.innerText()).trim(), svg_length: svg.length, texts, summary, links,
             editor_kept_focus: focused, svg_has_data_nodes: (svg.match(/data-node=/g) || []).length };
  });

  await step('click-box', async () => {
    const frame = await webviewFrame();
    const before = await selectionText();
    const box = frame.locator(`#drawing g[data-node="${cfg.box || 'forward.6'}"]`).first();
    await box.scrollIntoViewIfNeeded();
    await box.click();
    // Clicking moves the focus into the webview, which hides the status bar's selection
    // until the extension focuses the editor again: wait for a new selection, not for
    // the first change.
    let after = before;
    for (let i = 0; i < 40 && (after === before || after === null); i++) {
      await page.waitForTimeout(250);
      after = await selectionText();
    }
    const frameNow = await webviewFrame();
    const background = await frameNow.locator('body').evaluate((el) => getComputedStyle(el).backgroundColor);
    return { box: cfg.box || 'forward.6', selection_before: before, selection_after: after, background };
  }, 'architecture-light.png');

  await step('dark-theme', async () => {
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+T');
    await quickPick(page, 'Dark Modern', 'Dark Modern');
    await page.waitForTimeout(1500);
    const frame = await webviewFrame();
    const color = await frame.locator('body').evaluate((el) => getComputedStyle(el).color);
    const background = await frame.locator('body').evaluate((el) => getComputedStyle(el).backgroundColor);
    return { color, background };
  }, 'architecture-dark.png');
});
