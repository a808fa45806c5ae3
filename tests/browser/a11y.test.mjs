// axe-core on the pages that matter, light and dark: no serious or critical violations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  setupSuite, openPage, axeScript, searchSettled, diagnosisShown, pasteInto,
} from './harness.mjs';
import { multiRankOomLog } from './logs.mjs';

const env = setupSuite();

/* Runs axe in the page. The CSP forbids inline scripts, so axe goes in through evaluate
   (the DevTools protocol), which the page's CSP does not govern. */
async function axeViolations(page) {
  await page.evaluate(axeScript());
  const res = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return res.violations;
}

function report(violations) {
  return violations.map((v) => `${v.impact} ${v.id}: ${v.help}\n` +
    v.nodes.slice(0, 8).map((n) => `    ${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`).join('\n')).join('\n');
}

const SCENES = {
  async home(page, url) { await page.goto(url('/')); },
  async entry(page, url) { await page.goto(url('/memory/cuda-oom-batch-too-large/')); },
  async 'search results'(page, url) {
    const q = 'torch.OutOfMemoryError: CUDA out of memory';
    await page.goto(url('/search/?q=' + encodeURIComponent(q)));
    await searchSettled(page, q);
    await page.focus('#search-input');
    await page.keyboard.press('ArrowDown');   // an active result, as a keyboard user sees it
    assert.equal(await page.locator('li.result.is-active').count(), 1);
  },
  async diagnosis(page, url) {
    await page.goto(url('/search/'));
    await pasteInto(page, '#search-input', multiRankOomLog().text);
    await diagnosisShown(page);
    await page.click('details#diagnosis-collateral > summary');   // check the folded part too
  },
};

for (const scheme of ['light', 'dark']) {
  for (const [name, scene] of Object.entries(SCENES)) {
    test(`axe: ${name} (${scheme}) has no serious or critical violations`, { timeout: 60000 }, async (t) => {
      const { page, errors, url } = await openPage(env, t, { colorScheme: scheme });
      await scene(page, url);
      assert.equal(await page.evaluate(() => document.documentElement.getAttribute('data-theme')), scheme);
      const all = await axeViolations(page);
      const bad = all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      if (all.length) t.diagnostic(`axe (${name}, ${scheme}):\n${report(all)}`);
      assert.equal(bad.length, 0, `serious/critical axe violations on ${name} (${scheme}):\n${report(bad)}`);
      assert.deepEqual(errors, []);
    });
  }
}

test('axe itself reports a violation on a broken page (the check can fail)', { timeout: 30000 }, async (t) => {
  const { page, url } = await openPage(env, t);
  await page.goto(url('/'));
  await page.evaluate(() => {
    const b = document.createElement('button');
    b.id = 'unnamed';
    document.querySelector('main').appendChild(b);
  });
  const bad = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.ok(bad.some((v) => v.id === 'button-name'), report(bad));
});
