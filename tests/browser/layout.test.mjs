// Phone width: no horizontal page scroll. Screenshots of the main views, desktop and
// phone, light and dark, into target/browser-screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  setupSuite, openPage, screenshot, searchSettled, diagnosisShown,
} from './harness.mjs';

const env = setupSuite();

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const DESKTOP = { viewport: { width: 1280, height: 900 } };

const VIEWS = {
  async home(page, url) { await page.goto(url('/')); },
  async entry(page, url) { await page.goto(url('/memory/cuda-oom-batch-too-large/')); },
  // A list of cards whose summaries hold long unbroken words (`PYTORCH_CUDA_ALLOC_CONF=...`).
  async tag(page, url) { await page.goto(url('/tags/cuda-oom/')); },
  async search(page, url) {
    const q = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB';
    await page.goto(url('/search/?q=' + encodeURIComponent(q)));
    await searchSettled(page, q);
  },
  async diagnosis(page, url) {
    await page.goto(url('/search/'));
    await page.click('#log-samples button.sample[data-sample="oom-multi-rank.log"]');
    await diagnosisShown(page);
    await page.click('details#diagnosis-collateral > summary');
  },
};

function overflow(page) {
  return page.evaluate(() => {
    const w = window.innerWidth;
    const wide = [...document.querySelectorAll('body *')].filter((el) => {
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height) return false;
      // Inside a scrolling box is fine; only what sticks out of the page counts.
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const ox = getComputedStyle(p).overflowX;
        if (ox === 'auto' || ox === 'scroll' || ox === 'hidden' || ox === 'clip') return false;
      }
      return r.right > w + 1 || r.left < -1;
    }).slice(0, 5).map((el) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${[...el.classList].join('.')}`);
    return {
      innerWidth: w,
      scrollWidth: document.documentElement.scrollWidth,
      bodyScrollWidth: document.body.scrollWidth,
      wide,
    };
  });
}

for (const scheme of ['light', 'dark']) {
  for (const [name, view] of Object.entries(VIEWS)) {
    test(`phone (${scheme}): ${name} has no horizontal page scroll`, { timeout: 60000 }, async (t) => {
      const { page, errors, url } = await openPage(env, t, { ...PHONE, colorScheme: scheme });
      await view(page, url);
      const o = await overflow(page);
      assert.equal(o.innerWidth, 390, 'the layout viewport is the phone width (nothing forced it wider)');
      assert.ok(o.scrollWidth <= o.innerWidth + 1, `page scrolls sideways: ${JSON.stringify(o)}`);
      assert.ok(o.bodyScrollWidth <= o.innerWidth + 1, `body scrolls sideways: ${JSON.stringify(o)}`);
      if (name === 'diagnosis') {
        const panel = await page.$eval('#diagnosis', (p) => {
          const r = p.getBoundingClientRect();
          return { left: r.left, right: r.right, height: r.height };
        });
        assert.ok(panel.height > 0 && panel.left >= 0 && panel.right <= 391, `the panel fits: ${JSON.stringify(panel)}`);
      }
      await screenshot(page, `phone-${scheme}-${name}`);
      assert.deepEqual(errors, []);
    });
  }
  test(`desktop (${scheme}): screenshots of home, entry, search and diagnosis`, { timeout: 90000 }, async (t) => {
    const { page, errors, url } = await openPage(env, t, { ...DESKTOP, colorScheme: scheme });
    for (const [name, view] of Object.entries(VIEWS)) {
      await view(page, url);
      const o = await overflow(page);
      assert.ok(o.scrollWidth <= o.innerWidth + 1, `${name}: page scrolls sideways: ${JSON.stringify(o)}`);
      await screenshot(page, `desktop-${scheme}-${name}`);
    }
    assert.deepEqual(errors, []);
  });
}
