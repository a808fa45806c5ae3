// `errata serve` in the browser: an edit on disk shows in the open tab within 2 s without a
// manual reload; a broken front matter shows an overlay naming the file and line, which goes
// when the file is fixed; search works in the served site as in the built one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, REPO, launchBrowser, openPage, engineReady, searchSettled, scratchDir } from './harness.mjs';

const env = { browser: null, server: null, origin: null, root: null, lines: [] };

before(async () => {
  env.root = join(scratchDir(), 'serve-site');
  cpSync(join(REPO, 'tests', 'fixtures', 'valid-site'), env.root, { recursive: true });
  const child = spawn(BIN, ['serve', '--port', '0', '--root', env.root], { stdio: ['ignore', 'ignore', 'pipe'] });
  env.server = child;
  env.origin = await new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${buf}`)), 30000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      buf += d;
      env.lines.push(...d.split('\n').filter(Boolean));
      const m = buf.match(/at (http:\/\/127\.0\.0\.1:\d+)\//);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${buf}`)));
  });
  env.browser = await launchBrowser();
});

after(async () => {
  if (env.browser) await env.browser.close();
  if (env.server) env.server.kill('SIGINT');
});

const FILE = () => join(env.root, 'content', 'memory', 'quadratic-attention.md');
const PAGE = '/memory/quadratic-attention/';

test('an edited title shows in the open page within 2 s, without a manual reload', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url(PAGE));
  assert.equal((await page.locator('main#main h1').first().textContent()).trim(), 'Quadratic Attention Memory');
  // The live-reload stream is connected before the edit.
  await page.waitForFunction(() => document.documentElement.getAttribute('data-errata-live') === 'open');
  const original = readFileSync(FILE(), 'utf8');
  t.after(() => writeFileSync(FILE(), original));
  const started = Date.now();
  writeFileSync(FILE(), original.replace('title: Quadratic Attention Memory', 'title: Quadratic Attention Memory, Edited'));
  await page.waitForFunction(
    () => document.querySelector('main#main h1')?.textContent.trim() === 'Quadratic Attention Memory, Edited',
    null, { timeout: 2000 });
  const took = Date.now() - started;
  t.diagnostic(`edit -> new title on screen: ${took} ms`);
  assert.ok(took <= 2000);
  assert.deepEqual(errors, []);
});

test('a broken front matter shows an overlay with file and line; fixing it removes the overlay', { timeout: 60000 }, async (t) => {
  const { page, url } = await openPage(env, t);
  await page.goto(url(PAGE));
  await page.waitForFunction(() => document.documentElement.getAttribute('data-errata-live') === 'open');
  const original = readFileSync(FILE(), 'utf8');
  t.after(() => writeFileSync(FILE(), original));
  writeFileSync(FILE(), original.replace('severity: critical', 'severity: criticall'));
  const overlay = page.locator('#errata-overlay');
  await overlay.waitFor({ state: 'visible', timeout: 5000 });
  const problem = overlay.locator('pre.errata-problem').first();
  assert.equal(await problem.getAttribute('data-file'), 'content/memory/quadratic-attention.md');
  assert.equal(await problem.getAttribute('data-line'), '4');
  const text = await problem.textContent();
  assert.match(text, /content\/memory\/quadratic-attention\.md:4:11/);
  assert.match(text, /severity/);
  // The last good site is still served under the overlay.
  assert.equal((await page.locator('main#main h1').first().textContent()).trim().startsWith('Quadratic Attention Memory'), true);
  await page.screenshot({ path: join(REPO, 'target', 'browser-screenshots', 'serve-overlay.png') });
  writeFileSync(FILE(), original);
  await overlay.waitFor({ state: 'detached', timeout: 5000 });
});

test('search and diagnosis work in the served site', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  const query = 'Watchdog caught collective operation timeout';
  await page.goto(url('/search/?q=' + encodeURIComponent(query)));
  await engineReady(page);
  await searchSettled(page, query);
  const first = page.locator('ol#search-results-list > li.result').first();
  assert.match(await first.locator('a').first().getAttribute('href'), /nccl-timeout/);
  assert.deepEqual(errors, []);
});
