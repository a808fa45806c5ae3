// A damaged search bundle in the browser: one whose checksum is right but whose index files
// make the engine stop (found by the bundle fuzz target). The page must say so and keep
// working with the simple search, not hang or throw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setupSuite, openPage, pasteInto, REPO } from './harness.mjs';
import { multiRankOomLog } from './logs.mjs';

const env = setupSuite();
const DAMAGED = readFileSync(join(REPO, 'tests', 'fixtures', 'bundles', 'tantivy-panic.bundle'));

test('a bundle damaged behind a valid checksum gives an error and the simple search', { timeout: 60000 }, async (t) => {
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
  assert.match(message, /could not load the search index: it is damaged/);
  t.diagnostic(message);
  // The engine's stop was handled: no uncaught errors in the page.
  assert.deepEqual(errors.filter((e) => e.startsWith('pageerror')), []);
});
