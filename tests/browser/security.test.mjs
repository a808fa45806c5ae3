// Untrusted input (the address, a pasted log) is only ever shown as text.
// These run with CSP bypassed, so that the CSP cannot hide an injection: the page itself
// must never create elements from the input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setupSuite, openPage, searchSettled, diagnosisShown, pasteInto } from './harness.mjs';
import { hostileLog } from './logs.mjs';

const env = setupSuite();

const PAYLOAD = '<img src=x onerror="window.__xss=1">"><script>window.__xss=2</script>';

function injected(page) {
  return page.evaluate(() => ({
    xss: window.__xss,
    elements: [...document.querySelectorAll('#search-results *, #diagnosis *, #search-status *')]
      .filter((n) => /^(script|img|svg|iframe|b|object|embed|style|link|form|input)$/i.test(n.tagName))
      .map((n) => n.outerHTML),
    scripts: [...document.scripts].map((s) => s.getAttribute('src')),
    images: [...document.images].map((i) => i.getAttribute('src')),
  }));
}

test('a query with markup in the address stays text', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t, { bypassCSP: true });
  await page.goto(url('/search/?q=' + encodeURIComponent(PAYLOAD)));
  await searchSettled(page, PAYLOAD);
  await page.waitForTimeout(300);
  const r = await injected(page);
  assert.equal(r.xss, undefined);
  assert.deepEqual(r.elements, []);
  assert.deepEqual(r.scripts, ['../static/theme-init.js', '../static/errata.js']);
  assert.deepEqual(r.images, ['../static/favicon.svg']);
  assert.equal(await page.inputValue('#search-input'), PAYLOAD, 'the query is kept as typed');
  // The status quotes the query as text.
  const status = await page.$eval('#search-status', (s) => ({ text: s.textContent, children: s.children.length }));
  assert.equal(status.children, 0);
  assert.match(status.text, /\u201c<img src=x onerror=/);
  // Results (if any) carry the query words as <mark> text only.
  const marks = await page.$$eval('#search-results mark', (ms) => ms.filter((m) => m.children.length).length);
  assert.equal(marks, 0);
  assert.deepEqual(errors, []);
});

test('a pasted log with markup stays text in the diagnosis', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t, { bypassCSP: true });
  await page.goto(url('/search/'));
  const log = hostileLog();
  await pasteInto(page, '#search-input', log.text);
  await diagnosisShown(page);
  await page.evaluate(() => document.querySelectorAll('#diagnosis details').forEach((d) => { d.open = true; }));
  await page.waitForTimeout(300);
  const r = await injected(page);
  assert.equal(r.xss, undefined);
  assert.deepEqual(r.elements, []);
  assert.deepEqual(r.images, ['../static/favicon.svg']);
  const text = await page.textContent('#diagnosis');
  assert.ok(text.includes('<script>window.__xss=3</script>'), 'the script tag is shown as text');
  assert.ok(text.includes('<img src=x onerror=window.__xss=4>'), 'the img tag is shown as text');
  assert.deepEqual(errors, []);
});

test('a log passed in the address (?q= with new lines) stays text too', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t, { bypassCSP: true });
  const log = hostileLog();
  await page.goto(url('/search/?q=' + encodeURIComponent(log.text)));
  await diagnosisShown(page);
  assert.equal(await page.textContent('#diagnosis-source .diag-name'), 'log from the address');
  const r = await injected(page);
  assert.equal(r.xss, undefined);
  assert.deepEqual(r.elements, []);
  assert.ok((await page.textContent('#diagnosis-cause')).includes('<script>window.__xss=3</script>'));
  assert.deepEqual(errors, []);
});
