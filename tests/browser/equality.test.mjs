// The WebAssembly engine in the browser answers exactly as the CLI does, on the same bundle:
// the same entries in the same order, the same evidence, signatures, coverage and messages.
// Scores may differ in their last float digit: tantivy's BM25 takes a natural log, which is
// glibc's logf natively and Rust's libm in WebAssembly, and the two can round one ulp apart.
// So `score` fields are compared to a relative 1e-5; every other field must be identical.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setupSuite, openPage, engineReady, cliSearch, cliDiagnose, writeTemp } from './harness.mjs';
import { multiRankOomLog, nanLossLog, healthyLog, EVIDENCE_LOGS } from './logs.mjs';

const env = setupSuite();

/* Where two JSON values differ, as short "path: browser X, CLI Y" lines. */
const SCORE_TOLERANCE = 1e-5;

function sameScore(path, a, b) {
  return /\.score$/.test(path) && typeof a === 'number' && typeof b === 'number'
    && Math.abs(a - b) <= SCORE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
}

function differences(a, b, path = '', out = []) {
  if (out.length >= 12) return out;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    if (!Object.is(a, b) && !sameScore(path, a, b)) out.push(`${path || '.'}: browser ${JSON.stringify(a)}, CLI ${JSON.stringify(b)}`);
    return out;
  }
  if (Array.isArray(a) !== Array.isArray(b)) { out.push(`${path}: array vs object`); return out; }
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!(k in a) || !(k in b)) { out.push(`${path}.${k}: only in ${k in a ? 'browser' : 'CLI'}`); continue; }
    differences(a[k], b[k], `${path}.${k}`, out);
  }
  return out;
}

function assertSame(browser, cli, what) {
  const diff = differences(browser, cli);
  assert.deepStrictEqual(diff, [], `${what}: the browser and the CLI differ:\n  ${diff.join('\n  ')}`);
}

test('the comparison catches a real difference', () => {
  assert.deepStrictEqual(differences({ hits: [{ slug: 'a', score: 1.0 }] }, { hits: [{ slug: 'a', score: 1.0000001 }] }), []);
  assert.equal(differences({ hits: [{ slug: 'a', score: 1.0 }] }, { hits: [{ slug: 'a', score: 1.01 }] }).length, 1);
  assert.equal(differences({ hits: [{ slug: 'a' }] }, { hits: [{ slug: 'b' }] }).length, 1);
});

const QUERIES = [
  ['OOM', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'],
  ['NCCL', 'ncclUnhandledCudaError: Call to CUDA function failed.'],
  ['device mismatch', 'RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!'],
  ['dtype', 'RuntimeError: expected scalar type Half but found Float'],
  ['shape', 'RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x512 and 256x10)'],
  ['NaN loss', 'Loss is NaN at step 1200, stopping training'],
  ['junk', 'he said "x: y" AND( foo:bar) OR -- \'quoted\' ::: NOT) "unclosed *?'],
  ['empty-ish', '  ?  '],
];

test('search(q, 10) in the page deep-equals `errata search --json -n 10`', { timeout: 90000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url('/search/'));
  await engineReady(page);
  let withHits = 0;
  for (const [what, q] of QUERIES) {
    const browser = await page.evaluate((x) => window.errataSearch.search(x, 10), q);
    const cli = cliSearch(q, 10);
    assertSame(browser, cli.json, `${what} ${JSON.stringify(q)}`);
    assert.equal(cli.status, cli.json.hits.length ? 0 : 1, `${what}: exit code 1 means no hits`);
    if (cli.json.hits.length) withHits++;
  }
  // Not a comparison of two empty answers.
  assert.ok(withHits >= 6, `most queries find something (${withHits})`);
  const oom = await page.evaluate((x) => window.errataSearch.search(x, 10), QUERIES[0][1]);
  assert.ok(['cuda-oom-batch-too-large', 'activation-memory-quadratic-attention'].includes(oom.hits[0].slug));
  const empty = await page.evaluate((x) => window.errataSearch.search(x, 10), QUERIES[7][1]);
  assert.deepStrictEqual(empty.hits, []);
  assert.deepEqual(errors, []);
});

test('diagnose(text) in the page deep-equals `errata diagnose --json`', { timeout: 90000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url('/'));
  await engineReady(page);
  // A plain CUDA OOM is several entries' message: possible, not a diagnosis.
  const logs = [
    ['multi-rank', multiRankOomLog().text, ['possible']],
    ['NaN', nanLossLog().text, ['diagnosis', 'possible']],
    ['no error', healthyLog().text, ['none']],
  ];
  for (const [what, text, outcomes] of logs) {
    const file = writeTemp(`${what.replace(/\W+/g, '-')}.log`, text);
    const cli = cliDiagnose(file);
    const browser = await page.evaluate((x) => window.errataSearch.diagnose(x), text);
    assertSame(browser, cli.json, `${what} log`);
    assert.ok(outcomes.includes(cli.json.outcome), `${what} log: outcome ${cli.json.outcome}`);
    assert.equal(cli.json.diagnosed, cli.json.outcome === 'diagnosis', `${what} log: diagnosed`);
    assert.equal(cli.status, cli.json.diagnosed ? 0 : 1, `${what} log: exit code`);
  }
  assert.deepEqual(errors, []);
});

test('each kind of evidence diagnoses the same in the page and with the CLI', { timeout: 90000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url('/'));
  await engineReady(page);
  for (const [what, text, outcome, slug] of EVIDENCE_LOGS) {
    const cli = cliDiagnose(writeTemp(`${what.replace(/\W+/g, '-')}.log`, text));
    const browser = await page.evaluate((x) => window.errataSearch.diagnose(x), text);
    assertSame(browser, cli.json, what);
    assert.equal(cli.json.outcome, outcome, `${what}: outcome`);
    if (slug) assert.equal(cli.json.entries[0].slug, slug, `${what}: the first entry`);
  }
  assert.deepEqual(errors, []);
});

test('the sample logs diagnose the same in the page and with the CLI', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url('/search/'));
  await engineReady(page);
  for (const name of ['oom-multi-rank.log', 'nccl-timeout.log', 'loss-nan.log']) {
    const text = await page.evaluate((n) => fetch(`/static/samples/${n}`).then((r) => r.text()), name);
    const browser = await page.evaluate((x) => window.errataSearch.diagnose(x), text);
    const cli = cliDiagnose(join(env.site, 'static', 'samples', name));
    assert.notEqual(cli.json.outcome, 'none', `${name} points at an entry`);
    assertSame(browser, cli.json, name);
  }
  assert.deepEqual(errors, []);
});
