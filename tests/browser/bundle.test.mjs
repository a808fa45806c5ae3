// A damaged search bundle in the browser, found by the bundle fuzz target: one whose own
// checksum is right but whose index files are damaged (the engine's footer check refuses it),
// and the same bundle forged, with its files' checksums recomputed too, which makes the engine
// stop (a trap). Either way the page must say so and keep working with the simple search, not
// hang or throw. First the full index is damaged on a site without first-search files (so it
// is the first index loaded); then a damaged full index behind good first-search files; then
// damaged first-search files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setupSuite, openPage, pasteInto, REPO } from './harness.mjs';
import { multiRankOomLog } from './logs.mjs';

const env = setupSuite();
const fixture = (name) => readFileSync(join(REPO, 'tests', 'fixtures', 'bundles', name));
const CASES = [
  ['damaged behind a valid checksum', 'tantivy-panic.bundle',
    /could not load the search index: search bundle is corrupted: its index files are damaged \(.*: checksum mismatch\)/],
  ['forged, with every checksum recomputed', 'tantivy-panic-forged.bundle',
    /could not load the search index: it is damaged \(the engine stopped/],
];

for (const [what, name, expected] of CASES) test(`a bundle ${what} gives an error and the simple search`, { timeout: 60000 }, async (t) => {
  const DAMAGED = fixture(name);
  const { page, errors, url } = await openPage(env, t);
  await page.route('**/search/errata.bundle', (route) =>
    route.fulfill({ status: 200, contentType: 'application/octet-stream', body: DAMAGED }));
  await page.route('**/search/first/meta.json', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await page.goto(url('/search/?q=' + encodeURIComponent('CUDA out of memory')));
  await page.waitForFunction(() => /simple search/.test(document.getElementById('search-status')?.textContent || ''),
    null, { timeout: 20000 });
  assert.ok(await page.locator('ol#search-results-list > li.result').count() > 0, 'the simple search still answers');
  // Diagnosis needs the engine: the page says why it cannot run.
  await diagnosisNamesTheDamage(page, errors, expected, t);
});

/* Pastes a log; the diagnosis must fail with `expected`, and no error may escape the page. */
async function diagnosisNamesTheDamage(page, errors, expected, t) {
  await pasteInto(page, '#search-input', multiRankOomLog().text);
  await page.waitForFunction(() => /damaged/.test(document.getElementById('diagnosis-message')?.textContent || ''),
    null, { timeout: 20000 });
  const message = await page.locator('#diagnosis-message').textContent();
  assert.match(message, expected);
  t.diagnostic(message);
  // The engine's stop was handled: no uncaught errors in the page.
  assert.deepEqual(errors.filter((e) => e.startsWith('pageerror')), []);
}

test('damaged first-search postings: the query waits for the full index and is answered', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  let damaged = 0;
  await page.route(/\/search\/first\/t\/\d+\.bin$/, (route) => {
    damaged++;
    return route.fulfill({ status: 200, contentType: 'application/octet-stream', body: Buffer.from([0x09, 0x61]) });
  });
  await page.goto(url('/search/?q=' + encodeURIComponent('NCCL watchdog timeout')));
  // Answered by the full index: results name their matched signatures.
  await page.waitForFunction(() => document.querySelectorAll('.result-sig').length > 0,
    null, { timeout: 20000 });
  assert.ok(damaged > 0, 'the damaged postings were fetched');
  t.diagnostic(await page.locator('#search-status').textContent());
  assert.doesNotMatch(await page.locator('#search-status').textContent(), /simple search|error/i);
  assert.deepEqual(errors.filter((e) => e.startsWith('pageerror')), []);
});

for (const [what, name, expected] of CASES) test(`a full index ${what} behind good first-search files: quick results stay, diagnosis says why`, { timeout: 60000 }, async (t) => {
  const DAMAGED = fixture(name);
  const { page, errors, url } = await openPage(env, t);
  await page.route('**/search/errata.bundle', (route) =>
    route.fulfill({ status: 200, contentType: 'application/octet-stream', body: DAMAGED }));
  await page.goto(url('/search/?q=' + encodeURIComponent('CUDA out of memory')));
  await page.waitForFunction(() => /the full index could not be loaded/.test(document.getElementById('search-status')?.textContent || ''),
    null, { timeout: 20000 });
  assert.ok(await page.locator('ol#search-results-list > li.result').count() > 0, 'the first-search files still answer');
  // A later query is answered by them too, not the simple search.
  await page.fill('#search-input', 'NCCL watchdog timeout');
  await page.waitForFunction(() => /results? for \u201cNCCL watchdog timeout\u201d \(signatures and titles only/.test(document.getElementById('search-status')?.textContent || ''),
    null, { timeout: 20000 });
  await diagnosisNamesTheDamage(page, errors, expected, t);
});
