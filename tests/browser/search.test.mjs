// Searching by error message: typing, ?q= on load, highlighting, keyboard navigation, and the
// DEGRADED MODE (the word search over entries.json when the WebAssembly module cannot run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  setupSuite, openPage, searchSettled, resultSlugs, pasteInto,
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

/* ---------- DEGRADED MODE ---------- */

/* What the degraded mode promises (themes/default/static/errata-degraded.js), written out
   on its own: whole words of two or more letters or digits; a word of the query in an
   entry's signatures scores 5, in its title 3, in its tags 2, in its summary 1; ties go by
   title; the matched signature is the one holding the most words of the query. */
function degradedRanking(q, limit) {
  const words = (s) => String(s || '').toLowerCase().split(/\W+/).filter((w) => w.length >= 2);
  const qw = [...new Set(words(q))];
  const { entries } = JSON.parse(readFileSync(join(env.site, 'entries.json'), 'utf8'));
  const ranked = [];
  for (const e of entries) {
    const has = (list) => new Set(words(list.join(' ')));
    const [sig, title, tags, summary] = [has(e.signatures || []), has([e.title]), has(e.tags || []), has([e.summary])];
    const score = qw.reduce((n, w) => n + (sig.has(w) ? 5 : 0) + (title.has(w) ? 3 : 0) + (tags.has(w) ? 2 : 0) + (summary.has(w) ? 1 : 0), 0);
    if (!score) continue;
    let best = null, bestHits = 0;
    for (const one of e.signatures || []) {
      const ws = new Set(words(one));
      const n = qw.filter((w) => ws.has(w)).length;
      if (n > bestHits) { best = one; bestHits = n; }
    }
    ranked.push({ slug: e.slug, title: e.title, score, matched_signature: best });
  }
  ranked.sort((a, b) => b.score - a.score || String(a.title).localeCompare(String(b.title)));
  return ranked.slice(0, limit);
}

const DEGRADED_NOTE = ' (simple search: the search module could not be loaded).';

/* Server requests made from now on, by path. */
function requestsFrom(env_) {
  const start = env_.server.requests.length;
  return () => env_.server.requests.slice(start);
}

test('DEGRADED MODE without the WebAssembly module: entries.json ranked by words, said on the page, no diagnosis', { timeout: 60000 }, async (t) => {
  const { page, url } = await openPage(env, t);
  await page.route('**/static/errata-search.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
  const requests = requestsFrom(env);
  await page.goto(url('/search/'));
  const failed = await page.evaluate(() => window.errataSearch.ready.then(() => null, (e) => e.message));
  assert.match(failed || '', /could not fetch the search module \(HTTP 404\)/);

  const q = 'CUDA out of memory';
  await page.type('#search-input', q);
  await searchSettled(page, q);
  assert.ok(requests().includes('/entries.json'), 'the degraded mode reads entries.json');
  // The page lists what the word ranking promises, in its order (the search page asks for 20).
  const expected = degradedRanking(q, 20);
  assert.ok(expected.length > 1, 'the query has several word matches');
  assert.deepEqual(await resultSlugs(page), expected.map((h) => h.slug));
  // And says on the status line that this is the simple search, and why.
  assert.equal(await page.textContent('#search-status'), `${expected.length} results for \u201c${q}\u201d${DEGRADED_NOTE}`);
  const m = await marksOfFirst(page);
  const allowed = queryWords(q);
  assert.ok(m.title.length + m.sig.length > 0, 'the query words are marked');
  for (const w of [...m.title, ...m.sig]) assert.ok(allowed.has(w.toLowerCase()), `"${w}" is a word of the query`);
  const sig = expected[0].matched_signature === null ? null : expected[0].matched_signature.replace(/\s+/g, ' ').trim();
  assert.equal(m.sigText, sig && sig.length > 240 ? sig.slice(0, 239) + '\u2026' : sig, 'the signature holding most query words');

  // The hook answers the same, in the engine's shape, marked as the fallback.
  const r = await page.evaluate((x) => window.errataSearch.search(x, 5), q);
  assert.equal(r.engine, 'fallback');
  assert.equal(r.partial, undefined, 'never claims to be a partial answer of the engine');
  assert.deepEqual(r.hits.map((h) => [h.slug, h.score, h.matched_signature, h.coverage]),
    degradedRanking(q, 5).map((h) => [h.slug, h.score, h.matched_signature, null]));

  // No word of the query in any entry: nothing listed.
  await page.fill('#search-input', 'zzqx wvvk');
  await searchSettled(page, 'zzqx wvvk');
  assert.equal(await page.locator('ol#search-results-list > li').count(), 0);
  assert.equal(await page.textContent('#search-status'),
    'No entry matches \u201czzqx wvvk\u201d (simple search: the search module could not be loaded).');

  // It cannot diagnose: a sample and a pasted log both say why, and nothing keeps spinning.
  const why = 'log diagnosis needs the search module, which could not be loaded (could not fetch the search module (HTTP 404))';
  await page.click('#log-samples button.sample[data-sample="oom-multi-rank.log"]');
  await page.waitForFunction(() => /Could not diagnose/.test((document.getElementById('diagnosis-message') || {}).textContent || ''));
  assert.equal(await page.textContent('#diagnosis-message'), `Could not diagnose oom-multi-rank.log: ${why}`);
  assert.equal(await page.textContent('#search-status'), `Could not diagnose oom-multi-rank.log: ${why}`);
  assert.equal(await page.$eval('#diagnosis-progress', (p) => p.hidden), true, 'no progress left spinning');
  await pasteInto(page, '#search-input', 'step 1 ok\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB\n');
  await page.waitForFunction(() => /pasted log/.test((document.getElementById('diagnosis-message') || {}).textContent || ''));
  assert.equal(await page.textContent('#diagnosis-message'), `Could not diagnose pasted log: ${why}`);
  const hookDiag = await page.evaluate(() => window.errataSearch.diagnose('a\nb\n').then(() => null, (e) => e.message));
  assert.equal(hookDiag, why);
});

test('DEGRADED MODE in a browser without WebAssembly: no worker is started, the home page says so', { timeout: 60000 }, async (t) => {
  const { page, url } = await openPage(env, t);
  await page.addInitScript(() => { delete window.WebAssembly; });
  const requests = requestsFrom(env);
  await page.goto(url('/'));
  const failed = await page.evaluate(() => window.errataSearch.ready.then(() => null, (e) => e.message));
  assert.equal(failed, 'this browser has no Web Workers or WebAssembly');
  const q = 'NCCL watchdog timeout';
  await page.fill('#search-input', q);
  await page.waitForFunction((x) => (document.getElementById('search-status').textContent || '').includes(`\u201c${x}\u201d`), q);
  const expected = degradedRanking(q, 8);       // the home page asks for 8
  assert.deepEqual(await resultSlugs(page), expected.map((h) => h.slug));
  assert.equal(await page.textContent('#search-status'), `${expected.length} results for \u201c${q}\u201d${DEGRADED_NOTE}`);
  const engineFiles = requests().filter((p) => /search-worker\.js|\.wasm|\.bundle$/.test(p));
  assert.deepEqual(engineFiles, [], 'nothing of the engine is fetched');
});

test('DEGRADED MODE without entries.json either (as from file://): the search says it failed, and tries again', { timeout: 60000 }, async (t) => {
  const { page, url } = await openPage(env, t);
  await page.route('**/static/errata-search.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
  let refuse = true;
  await page.route('**/entries.json', (route) => (refuse ? route.fulfill({ status: 404, body: 'gone' }) : route.continue()));
  await page.goto(url('/search/'));
  await page.type('#search-input', 'CUDA out of memory');
  await searchSettled(page, 'CUDA out of memory');
  assert.equal(await page.textContent('#search-status'), 'Search failed: could not load the search index.');
  assert.equal(await page.locator('ol#search-results-list > li').count(), 0);
  const r = await page.evaluate(() => window.errataSearch.search('CUDA', 5).then(() => null, (e) => e.message));
  assert.equal(r, 'could not load the search index');
  // A failed entries.json is fetched again by the next search.
  refuse = false;
  await page.fill('#search-input', 'NCCL');
  await searchSettled(page, 'NCCL');
  const expected = degradedRanking('NCCL', 20);
  assert.deepEqual(await resultSlugs(page), expected.map((h) => h.slug));
  assert.ok((await page.textContent('#search-status')).endsWith(DEGRADED_NOTE));
});

test('with the module working, the degraded mode is never used', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  const requests = requestsFrom(env);
  await page.goto(url('/search/'));
  await page.evaluate(() => window.errataSearch.ready);
  const q = 'CUDA out of memory';
  await page.type('#search-input', q);
  await searchSettled(page, q);
  assert.doesNotMatch(await page.textContent('#search-status'), /simple search/);
  const r = await page.evaluate((x) => window.errataSearch.search(x, 5), q);
  assert.notEqual(r.engine, 'fallback');
  assert.ok(!requests().includes('/entries.json'), 'entries.json is not read');
  assert.deepEqual(errors, []);
});
