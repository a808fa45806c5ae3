// The first search in a browser loads the module and the first-search files it names only (the
// postings of its words over signatures, titles and tags, then its hits' titles), answers from
// them, and says so; the full index comes after, and the same
// query is then answered again, as `errata search` answers it. Here the full index is held
// back by the test until the quick answer is on screen, so the order is checked, not assumed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setupSuite, openPage, searchSettled, resultSlugs, cliSearch } from './harness.mjs';

const env = setupSuite();
const QUERY = 'NCCL watchdog caught collective operation timeout';

test('the first answer comes from the first-search files, then the full index answers like the CLI', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  let release;
  const held = new Promise((r) => { release = r; });
  let fullAsked = false;
  await page.route('**/search/errata.bundle', async (route) => {
    fullAsked = true;
    await held;
    await route.continue();
  });
  await page.goto(url('/search/?q=' + encodeURIComponent(QUERY)));
  await page.waitForFunction(() => /full index is loading/.test(document.getElementById('search-status')?.textContent || ''),
    null, { timeout: 20000 });
  const quick = await resultSlugs(page);
  const status = await page.locator('#search-status').textContent();
  t.diagnostic(`quick: ${status} ${JSON.stringify(quick.slice(0, 3))}`);
  assert.ok(quick.length > 0, 'the first-search files answered');
  assert.equal(await page.locator('.result-sig').count(), 0, 'quick results name no matched signature');
  const firstFiles = fetched.filter((p) => p.startsWith('/search/first/'));
  assert.ok(firstFiles.includes('/search/first/meta.json'), 'the statistics were fetched');
  assert.ok(firstFiles.some((p) => /^\/search\/first\/t\/\d+\.bin$/.test(p)), 'postings were fetched');
  assert.ok(firstFiles.some((p) => /^\/search\/first\/d\/\d+\.json$/.test(p)), 'titles were fetched');
  assert.equal(new Set(firstFiles).size, firstFiles.length, 'no file is fetched twice');
  const beforeFull = fetched.indexOf('/search/errata.bundle');
  assert.ok(beforeFull === -1 || fetched.indexOf('/search/first/meta.json') < beforeFull,
    'the first-search files are fetched before the full index');

  release();
  await searchSettled(page, QUERY);
  assert.ok(fullAsked, 'the full index was fetched after the first answer');
  const full = await resultSlugs(page);
  const cli = cliSearch(QUERY, 20).json.hits.map((h) => h.slug);
  assert.deepEqual(full, cli, 'after the full index, the page answers as the CLI');
  assert.ok(await page.locator('.result-sig').count() > 0, 'full results name their matched signature');
  assert.doesNotMatch(await page.locator('#search-status').textContent(), /signatures and titles/);
  assert.deepEqual(errors, []);
});

test('a site without the first-search files loads the full index at once', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.route('**/search/first/meta.json', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await page.goto(url('/search/?q=' + encodeURIComponent(QUERY)));
  await searchSettled(page, QUERY);
  assert.deepEqual(await resultSlugs(page), cliSearch(QUERY, 20).json.hits.map((h) => h.slug));
  assert.ok(await page.locator('.result-sig').count() > 0);
  assert.deepEqual(errors.filter((e) => !/404/.test(e)), []);
});
