// site_drive.js -- the browser half of tests/docs/test_site.py.
//
// Opens the built docs site (served over HTTP) in headless Chromium through
// playwright-core: screenshots of the given pages in the light and the dark
// palette, one click on the palette toggle, the pictures of some pages (each
// loaded, or its width is 0), and a search for a word. Writes
// result.json beside the screenshots.
//
// usage: node site_drive.js CONFIG.json    (playwright-core found through NODE_PATH)
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = { shots: [], schemes: {}, toggled: null, search: [], images: {}, console_errors: [] };

async function main() {
  const browser = await chromium.launch({
    executablePath: cfg.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    for (const scheme of ['light', 'dark']) {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 860 }, colorScheme: scheme,
      });
      const page = await context.newPage();
      page.on('console', (m) => { if (m.type() === 'error') out.console_errors.push(m.text()); });
      for (const [name, address] of Object.entries(cfg.pages)) {
        await page.goto(cfg.base + address, { waitUntil: 'networkidle' });
        const file = path.join(cfg.out_dir, `site-${name}-${scheme}.png`);
        await page.screenshot({ path: file });
        out.shots.push(file);
        out.schemes[`${name}-${scheme}`] = await page.getAttribute('body', 'data-md-color-scheme');
      }
      if (scheme === 'light') {
        await page.goto(cfg.base, { waitUntil: 'networkidle' });
        await page.locator('label.md-header__button[for^="__palette"]:visible').first().click();
        await page.waitForTimeout(300);
        out.toggled = await page.getAttribute('body', 'data-md-color-scheme');
        await page.evaluate(() => localStorage.clear());
      }
      await context.close();
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    for (const address of cfg.picture_pages) {
      await page.goto(cfg.base + address, { waitUntil: 'networkidle' });
      out.images[address] = await page.evaluate(() => [...document.images]
        .filter((image) => image.getAttribute('src').split('#')[0].endsWith('.png'))
        .map((image) => [image.getAttribute('src'), image.complete ? image.naturalWidth : 0]));
    }
    // With the system theme light, the palette toggle alone decides which of a picture's
    // two images is shown.
    const shown = () => page.evaluate(() => [...document.images]
      .filter((image) => image.offsetWidth > 0 && image.getAttribute('src').includes('pictures/'))
      .map((image) => image.getAttribute('src')));
    await page.goto(cfg.base + cfg.picture_pages[0], { waitUntil: 'networkidle' });
    out.shown = { light: await shown() };
    await page.locator('label.md-header__button[for^="__palette"]:visible').first().click();
    await page.waitForTimeout(300);
    out.shown.dark = await shown();
    await page.evaluate(() => localStorage.clear());
    await page.goto(cfg.base, { waitUntil: 'networkidle' });
    // The search index is built in a web worker; under load that takes a while, so the
    // query is typed, key by key as a person types it (Material searches on key presses,
    // not on a value set at once), once the panel no longer says "Initializing search".
    const input = page.locator('input.md-search__input');
    await input.click();
    await page.waitForFunction(() => {
      const meta = document.querySelector('.md-search-result__meta');
      return meta !== null && !/Initializing/i.test(meta.textContent || '');
    }, null, { timeout: 120000 });
    await input.pressSequentially(cfg.search, { delay: 30 });
    await page.locator('.md-search-result__item').first().waitFor({ timeout: 60000 });
    out.search = await page.locator('.md-search-result__item').allInnerTexts();
    await page.screenshot({ path: path.join(cfg.out_dir, 'site-search.png') });
    await context.close();
  } finally {
    await browser.close();
    fs.writeFileSync(path.join(cfg.out_dir, 'result.json'), JSON.stringify(out, null, 2));
  }
}

main().catch((error) => { console.error(error); process.exit(1); });
