// Searching by error message: typing, ?q= on load, highlighting, keyboard navigation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  setupSuite, openPage, searchSettled, resultSlugs,
} from './harness.mjs';
import { OOM_SLUGS } from './logs.mjs';

const env = setupSuite();

const OOM_QUERY = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB';
const NCCL_QUERY = 'ncclUnhandledCudaError: Call to CUDA function failed.';

/* The words a query may highlight: its letter/digit runs and their camelCase parts. */
function queryWords(q) {
  const out = new Set();
  for (const run of q.match(/[A-Za-z0-9]+/g) || []) {
    out.add(run.toLowerCase());
    for (const p of run.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) || []) out.add(p.toLowerCase());
  }
  return out;
}

async function marksOfFirst(page) {
  return page.$eval('ol#search-results-list > li.result:first-child', (li) => ({
    title: [...li.querySelectorAll('a.result-link mark')].map((m) => m.textContent),
    sig: [...li.querySelectorAll('.result-sig code mark')].map((m) => m.textContent),
    sigText: li.querySelector('.result-sig code') ? li.querySelector('.result-sig code').textContent : null,
    markChildren: [...li.querySelectorAll('mark')].filter((m) => m.children.length > 0).length,
  }));
}

test('typing an OOM error lists a memory OOM entry first, with the matched words marked', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url('/search/'));
  assert.equal(await page.evaluate(() => document.activeElement && document.activeElement.id), 'search-input',
    'the search page focuses the box');
  await page.type('#search-input', OOM_QUERY);
  await searchSettled(page, OOM_QUERY);

  const slugs = await resultSlugs(page);
  assert.ok(slugs.length >= 2, `several results, got ${JSON.stringify(slugs)}`);
  assert.ok(OOM_SLUGS.includes(slugs[0]), `first result ${slugs[0]} is a memory OOM entry`);
  // The page shows the engine's ranking, unchanged (the search page asks for 20).
  const engine = await page.evaluate((q) => window.errataSearch.search(q, 20), OOM_QUERY);
  assert.deepEqual(slugs, engine.hits.map((h) => h.slug));

  const m = await marksOfFirst(page);
  const allowed = queryWords(OOM_QUERY);
  assert.ok(m.title.length > 0, 'words of the title are marked');
  assert.ok(m.sig.length >= 3, `words of the signature are marked: ${JSON.stringify(m.sig)}`);
  for (const w of [...m.title, ...m.sig]) assert.ok(allowed.has(w.toLowerCase()), `"${w}" is a word of the query`);
  const sigMarks = m.sig.map((w) => w.toLowerCase());
  for (const w of ['cuda', 'memory']) assert.ok(sigMarks.includes(w), `"${w}" marked in the signature`);
  assert.equal(m.markChildren, 0, 'marks hold text only');
  // Highlighting does not change the text.
  assert.equal(m.sigText, engine.hits[0].matched_signature);

  const status = await page.textContent('#search-status');
  assert.match(status, new RegExp(`^${slugs.length} results for \u201c`));
  assert.equal(new URL(page.url()).searchParams.get('q'), OOM_QUERY, 'the address carries the query');
  assert.deepEqual(errors, []);
});

test('typing an NCCL error lists nccl-communicator-error first', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url('/search/'));
  await page.type('#search-input', NCCL_QUERY);
  await searchSettled(page, NCCL_QUERY);
  const slugs = await resultSlugs(page);
  assert.equal(slugs[0], 'nccl-communicator-error');
  const m = await marksOfFirst(page);
  const sigMarks = m.sig.map((w) => w.toLowerCase());
  assert.ok(sigMarks.includes('nccl') || sigMarks.includes('ncclunhandledcudaerror'),
    `the NCCL word is marked: ${JSON.stringify(m.sig)}`);
  const allowed = queryWords(NCCL_QUERY);
  for (const w of [...m.title, ...m.sig]) assert.ok(allowed.has(w.toLowerCase()), `"${w}" is a word of the query`);
  assert.deepEqual(errors, []);
});

test('/search/?q= runs the query on load', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url('/search/?q=' + encodeURIComponent(NCCL_QUERY)));
  await searchSettled(page, NCCL_QUERY);
  assert.equal(await page.inputValue('#search-input'), NCCL_QUERY);
  const slugs = await resultSlugs(page);
  assert.equal(slugs[0], 'nccl-communicator-error');
  const link = await page.getAttribute('ol#search-results-list > li.result:first-child a.result-link', 'href');
  assert.equal(new URL(link, page.url()).pathname, '/distributed/nccl-communicator-error/');
  assert.ok(await page.locator('ol#search-results-list mark').count() > 0, 'matched words are marked');

  // And a query with no match says so instead of listing anything.
  await page.goto(url('/search/?q=' + encodeURIComponent('zzqx wvvk')));
  await searchSettled(page, 'zzqx wvvk');
  assert.equal(await page.locator('ol#search-results-list > li').count(), 0);
  assert.match(await page.textContent('#search-status'), /No entry matches/);
  assert.deepEqual(errors, []);
});

test('arrow keys move the active result, Enter opens it', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url('/search/'));
  const q = 'CUDA out of memory';
  await page.type('#search-input', q);
  await searchSettled(page, q);
  const slugs = await resultSlugs(page);
  assert.ok(slugs.length >= 3, 'at least three results');

  const state = () => page.evaluate(() => {
    const act = [...document.querySelectorAll('ol#search-results-list > li.result.is-active')];
    return {
      active: act.map((li) => li.id),
      index: [...document.querySelectorAll('ol#search-results-list > li.result')].findIndex((li) => li.classList.contains('is-active')),
      desc: document.getElementById('search-input').getAttribute('aria-activedescendant'),
      focus: document.activeElement && document.activeElement.id,
    };
  });

  assert.deepEqual(await state(), { active: [], index: -1, desc: null, focus: 'search-input' });
  await page.keyboard.press('ArrowDown');
  let s = await state();
  assert.equal(s.index, 0);
  assert.equal(s.desc, s.active[0]);
  await page.keyboard.press('Escape');
  s = await state();
  assert.deepEqual([s.index, s.desc, s.focus], [-1, null, 'search-input'], 'Escape clears the active result, keeps focus');

  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  s = await state();
  assert.equal(s.index, 1, 'second result active after ArrowDown twice');
  assert.equal(s.active.length, 1);
  assert.equal(s.desc, s.active[0]);
  await page.keyboard.press('ArrowUp');
  s = await state();
  assert.equal(s.index, 0, 'first result active after ArrowUp');
  assert.equal(s.active.length, 1);
  assert.equal(s.desc, s.active[0], 'aria-activedescendant names the active result');
  assert.equal(await page.inputValue('#search-input'), q, 'arrows do not change the query');

  const href = await page.$eval(`#${s.desc} a.result-link`, (a) => a.href);
  await Promise.all([page.waitForURL(href), page.keyboard.press('Enter')]);
  assert.equal(page.url(), href);
  assert.match(new URL(href).pathname, new RegExp(`/${slugs[0]}/$`));
  assert.deepEqual(errors, []);
});

test('"/" on the home page focuses the search box; Enter there goes to the search page', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url('/'));
  assert.notEqual(await page.evaluate(() => document.activeElement && document.activeElement.id), 'search-input');
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement && document.activeElement.id), 'search-input');
  assert.equal(await page.inputValue('#search-input'), '', 'the "/" is not typed into the box');
  // Inside the box "/" is just a character.
  await page.keyboard.type('a/b');
  assert.equal(await page.inputValue('#search-input'), 'a/b');
  await page.fill('#search-input', '');

  // The home page shows results inline, then Enter submits to /search/?q=.
  const q = 'expected scalar type Half but found Float';
  await page.keyboard.type(q);
  await page.waitForSelector('ol#search-results-list > li.result[data-slug="tensor-dtype-mismatch"]');
  await Promise.all([page.waitForURL(/\/search\/\?q=/), page.keyboard.press('Enter')]);
  assert.equal(new URL(page.url()).searchParams.get('q'), q);
  await searchSettled(page, q);
  assert.equal((await resultSlugs(page))[0], 'tensor-dtype-mismatch');
  assert.deepEqual(errors, []);
});

test('without the WebAssembly module, search falls back to entries.json and diagnosis says why', { timeout: 60000 }, async (t) => {
  const { page, url } = await openPage(env, t);
  await page.route('**/static/errata-search.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto(url('/search/'));
  const failed = await page.evaluate(() => window.errataSearch.ready.then(() => null, (e) => e.message));
  assert.match(failed || '', /could not fetch the search module \(HTTP 404\)/);

  const q = 'CUDA out of memory';
  await page.type('#search-input', q);
  await searchSettled(page, q);
  const slugs = await resultSlugs(page);
  assert.ok(slugs.length > 0, 'the simple search finds entries');
  assert.match(await page.textContent('#search-status'), /simple search: the search module could not be loaded/);
  const r = await page.evaluate((x) => window.errataSearch.search(x, 5), q);
  assert.equal(r.engine, 'fallback');
  assert.ok(r.hits.length <= 5);

  await page.click('#log-samples button.sample[data-sample="oom-multi-rank.log"]');
  await page.waitForFunction(() => /Could not diagnose/.test((document.getElementById('diagnosis-message') || {}).textContent || ''));
  assert.match(await page.textContent('#diagnosis-message'), /needs the search module, which could not be loaded/);
  assert.equal(await page.$eval('#diagnosis-progress', (p) => p.hidden), true, 'no progress left spinning');
});
