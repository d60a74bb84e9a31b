// architecture_drive.js -- the browser half of test_vscode_architecture.py, run by the
// shared probe (vscode_probe.py) in place of its drive.js, with the same config.
//
// Opens the GPT (light theme), clicks the model's name and checks that the Architecture
// tab does NOT open by itself, opens it from the code lens, reads the SVG inside its
// webview, clicks the attention box and reads the editor's selection, presses Fit and
// measures the drawing against the tab, switches to every operation and measures each
// label against the drawing and its box, and takes screenshots in the light theme and,
// after switching, the dark one. Writes result.json as drive.js does.
'use strict';
const path = require('path');
const { cfg, launch, stepper, statusText, quickPick, openSteps, run } = require('./drive_common');

run(async () => {
  const page = await launch({ width: 1440, height: 900 });
  const editor = page.locator('.editor-group-container .monaco-editor').first();
  const step = stepper(page);
  const architectureTab = () => page.locator('.tab', { hasText: 'Architecture: Gpt' });

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

  /** The tab's texts, summary and boxes, once a drawing of `detail` is shown. */
  async function drawing(detail) {
    const frame = await webviewFrame();
    await frame.locator(`#${detail}[aria-pressed="true"]`).waitFor({ timeout: cfg.timeout_ms });
    await frame.locator('#drawing g[data-node]').first().waitFor({ timeout: cfg.timeout_ms });
    await page.waitForTimeout(800);
    const svg = await frame.locator('#drawing svg').evaluate((el) => el.outerHTML);
    const texts = await frame.locator('#drawing svg text').evaluateAll((els) => els.map((e) => e.textContent));
    return { frame, svg, texts };
  }

  /** Every text that runs past the drawing's right edge, or out of the box it is in,
   * measured as the webview draws it (getBBox, in the drawing's own units). */
  async function clipped(frame) {
    return frame.locator('#drawing svg').evaluate((svg) => {
      const width = svg.viewBox.baseVal.width;
      const found = [];
      for (const text of svg.querySelectorAll('text')) {
        const box = text.getBBox();
        if (box.x < -0.5 || box.x + box.width > width + 0.5) {
          found.push({ text: text.textContent, right: box.x + box.width, edge: width });
          continue;
        }
        const group = text.closest('g[data-node]');
        const rect = group && group.getAttribute('data-kind') !== 'frame' ? group.querySelector('rect') : null;
        if (!rect) continue;
        const left = rect.x.baseVal.value, right = left + rect.width.baseVal.value;
        if (Number(text.getAttribute('x')) >= right) continue; // a label beside the box
        if (box.x < left - 0.5 || box.x + box.width > right + 0.5) {
          found.push({ text: text.textContent, right: box.x + box.width, box: [left, right] });
        }
      }
      return found;
    });
  }

  /** The drawing's rectangle against the tab's view, and whether the view scrolls. */
  async function fitOf(frame) {
    return frame.evaluate(() => {
      const view = document.getElementById('view');
      const svg = document.querySelector('#drawing svg');
      const v = view.getBoundingClientRect(), d = svg.getBoundingClientRect();
      return {
        view: [v.left, v.top, v.right, v.bottom].map(Math.round),
        drawing: [d.left, d.top, d.right, d.bottom].map(Math.round),
        inside: d.left >= v.left - 1 && d.top >= v.top - 1 && d.right <= v.right + 1 && d.bottom <= v.bottom + 1,
        scrolls: view.scrollWidth > view.clientWidth + 1 || view.scrollHeight > view.clientHeight + 1,
        fills: Math.max(d.width / v.width, d.height / v.height),
      };
    });
  }

  /** A screenshot of the tab alone (from its title down), for reading its labels. */
  async function tabShot(name) {
    const tab = await architectureTab().first().boundingBox();
    const size = page.viewportSize();
    const clip = { x: tab.x, y: tab.y, width: size.width - tab.x, height: size.height - tab.y };
    await page.screenshot({ path: path.join(cfg.out_dir, name), clip });
    return name;
  }

  const selectionText = () => statusText(page, 'status.editor.selection');

  const { open } = await openSteps(step, page, editor, async () => {
    await page.waitForFunction(() => document.querySelector('.editor-group-container .view-lines')?.innerText.replace(/\u00a0/g, ' ').includes('model Gpt'),
      null, { timeout: cfg.timeout_ms });
    return {};
  });
  if (!open.ok) return;

  // Let the server start and check the file before the click.
  await page.waitForTimeout(4000);

  const modelLine = () => editor.locator('.view-line', { hasText: 'model Gpt:' }).first();
  async function clickModelName() {
    const line = modelLine();
    await line.waitFor({ timeout: cfg.timeout_ms });
    const name = line.locator('span', { hasText: /^Gpt$/ }).first();
    if (await name.count() > 0) {
      await name.click();
    } else {
      const box = await line.boundingBox();
      await page.mouse.click(box.x + 60, box.y + box.height / 2);
    }
  }

  await step('click-model-name', async () => {
    await clickModelName();
    // Longer than the tab took to open by itself before it became a setting.
    await page.waitForTimeout(4000);
    return { opened_by_itself: await architectureTab().count() > 0 };
  });

  await step('open-from-code-lens', async () => {
    const lens = page.locator('.codelens-decoration a', { hasText: 'Show architecture' }).first();
    await lens.waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await lens.click();
    const tab = architectureTab().first();
    await tab.waitFor({ state: 'visible', timeout: cfg.timeout_ms * 2 });
    const { frame, svg, texts } = await drawing('layers');
    const summary = await frame.locator('#summary').innerText();
    const links = await frame.locator('#links a').allInnerTexts();
    // The open tab follows the cursor without taking the focus.
    await clickModelName();
    await page.waitForTimeout(1000);
    const focused = await page.evaluate(() => !!document.activeElement?.closest('.monaco-editor'));
    return { tab: (await tab.innerText()).trim(), svg_length: svg.length, texts, summary, links,
             editor_kept_focus: focused, svg_has_data_nodes: (svg.match(/data-node=/g) || []).length,
             clipped: await clipped(frame) };
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

  await step('fit', async () => {
    const frame = await webviewFrame();
    await frame.locator('#zoom-in').click();
    await frame.locator('#zoom-in').click();
    const zoomed = await fitOf(frame);
    await frame.locator('#zoom-fit').click();
    await page.waitForTimeout(300);
    return { zoomed, fitted: await fitOf(frame) };
  }, 'architecture-fit-light.png');

  await step('operations', async () => {
    const frame = await webviewFrame();
    await frame.locator('#operations').click();
    const { texts } = await drawing('operations');
    const now = await webviewFrame();
    return { texts, clipped: await clipped(now), fitted: await fitOf(now) };
  }, 'architecture-operations-light.png');

  // Zoomed in enough to read the labels beside the operations.
  await step('operations-zoomed', async () => {
    const frame = await webviewFrame();
    for (let i = 0; i < 4; i++) await frame.locator('#zoom-in').click();
    await frame.evaluate(() => { const view = document.getElementById('view'); view.scrollTop = 0; view.scrollLeft = 0; });
    await page.waitForTimeout(300);
    return { tab_shot: await tabShot('architecture-operations-zoomed-light.png') };
  });

  await step('dark-theme', async () => {
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+T');
    await quickPick(page, 'Dark Modern', 'Dark Modern');
    await page.waitForTimeout(1500);
    const frame = await webviewFrame();
    const color = await frame.locator('body').evaluate((el) => getComputedStyle(el).color);
    const background = await frame.locator('body').evaluate((el) => getComputedStyle(el).backgroundColor);
    return { color, background, tab_shot: await tabShot('architecture-operations-zoomed-dark.png') };
  }, 'architecture-operations-dark.png');

  await step('dark-layers', async () => {
    const frame = await webviewFrame();
    await frame.locator('#layers').click();
    await drawing('layers');
    const now = await webviewFrame();
    await now.locator('#zoom-fit').click();
    await page.waitForTimeout(300);
    return { fitted: await fitOf(now) };
  }, 'architecture-dark.png');

  // A model with the long names of a published checkpoint: its labels must fit too.
  await step('long-names', async () => {
    await editor.click();
    await page.keyboard.press('Control+P');
    await quickPick(page, cfg.long_names_file, cfg.long_names_file);
    const lens = page.locator('.codelens-decoration a', { hasText: 'Show architecture' }).first();
    await editor.locator('.view-line', { hasText: 'model TransformerLanguageModel:' }).first()
      .waitFor({ timeout: cfg.timeout_ms });
    await lens.waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await lens.click();
    await page.locator('.tab', { hasText: 'Architecture: TransformerLanguageModel' }).first()
      .waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    const layers = await drawing('layers');
    const clippedLayers = await clipped(layers.frame);
    await layers.frame.locator('#operations').click();
    await page.waitForTimeout(500);
    const operations = await drawing('operations');
    return { layers: layers.texts, operations: operations.texts, clipped_layers: clippedLayers,
             clipped_operations: await clipped(operations.frame) };
  }, 'architecture-long-names-dark.png');
});
