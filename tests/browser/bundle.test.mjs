// A damaged search bundle in the browser, found by the bundle fuzz target: one whose own
// checksum is right but whose index files are damaged (the engine's footer check refuses it),
// and the same bundle forged, with its files' checksums recomputed too, which makes the engine
// stop (a trap). Either way the page must say so and keep working with the simple search, not
// hang or throw.
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
  await page.goto(url('/search/?q=' + encodeURIComponent('CUDA out of memory')));
  await page.waitForFunction(() => /simple search/.test(document.getElementById('search-status')?.textContent || ''),
    null, { timeout: 20000 });
  assert.ok(await page.locator('ol#search-results-list > li.result').count() > 0, 'the simple search still answers');
  // Diagnosis needs the engine: the page says why it cannot run.
  await pasteInto(page, '#search-input', multiRankOomLog().text);
  await page.waitForFunction(() => /damaged/.test(document.getElementById('diagnosis-message')?.textContent || ''),
    null, { timeout: 20000 });
  const message = await page.locator('#diagnosis-message').textContent();
  assert.match(message, expected);
  t.diagnostic(message);
  // The engine's stop was handled: no uncaught errors in the page.
  assert.deepEqual(errors.filter((e) => e.startsWith('pageerror')), []);
});
