// Every kind of page loads without console errors, page errors or CSP violations, and the
// WebAssembly engine starts on it under the site's Content-Security-Policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setupSuite, openPage, engineReady, searchSettled } from './harness.mjs';

const env = setupSuite();

const PAGES = [
  ['home', '/'],
  ['entry page', '/memory/cuda-oom-batch-too-large/'],
  ['search with a query', '/search/?q=' + encodeURIComponent('CUDA out of memory'), 'CUDA out of memory'],
  ['tags page', '/tags/'],
  ['a tag page', '/tags/cuda-oom/'],
  ['category page', '/memory/'],
  ['all failures', '/failures/'],
  ['404 page', '/404.html'],
];

for (const [what, path, query] of PAGES) {
  test(`${what} (${path}): no console errors, page errors or CSP violations`, { timeout: 60000 }, async (t) => {
    const { page, errors, url } = await openPage(env, t);
    const bad = [];
    page.on('response', (r) => { if (r.status() >= 400) bad.push(`${r.status()} ${r.url()}`); });
    page.on('requestfailed', (r) => bad.push(`failed ${r.url()}: ${r.failure() && r.failure().errorText}`));
    const res = await page.goto(url(path), { waitUntil: 'load' });
    assert.equal(res.status(), 200);
    assert.equal(await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]') !== null), true,
      'the page sets its CSP');
    // The engine loads (wasm under 'wasm-unsafe-eval'; the worker under script-src 'self',
    // which worker-src falls back to; its fetches under default-src 'self').
    await engineReady(page);
    if (query) {
      await searchSettled(page, query);
      assert.ok(await page.locator('ol#search-results-list > li.result').count() > 0, 'results shown');
    }
    assert.ok(await page.locator('main#main h1').count() >= 1, 'the page has its heading');
    // The theme toggle works without errors on every page.
    await page.click('#theme-toggle');
    const theme = await page.evaluate(() => document.documentElement.getAttribute('data-theme'));
    assert.equal(theme, 'dark');
    await page.waitForTimeout(100);
    assert.deepEqual(await page.evaluate(() => window.__csp), [], 'no CSP violations');
    assert.deepEqual(errors, [], 'no console or page errors');
    assert.deepEqual(bad, [], 'no failed requests');
  });
}

test('the recorder sees CSP violations and console errors (the checks above can fail)', { timeout: 30000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url('/'));
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__inline = 1';
    document.body.appendChild(s);
  });
  await page.waitForFunction(() => window.__csp.length > 0);
  const v = await page.evaluate(() => window.__csp);
  assert.equal(v[0].directive, 'script-src-elem');
  assert.equal(await page.evaluate(() => window.__inline), undefined, 'the inline script was blocked');
  assert.ok(errors.some((e) => /Content Security Policy/.test(e)), 'the violation is a console error too');
});
