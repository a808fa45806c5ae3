// Lists longer than `paginate_by` go on over pages: the real content, built with ten cards a
// page, is browsed by its pager like a reader would, and the pager passes axe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN, REPO, scratchDir, startServer, launchBrowser, axeScript, screenshot } from './harness.mjs';

const PER_PAGE = 10;
const env = { browser: null, server: null, total: 0 };

before(async () => {
  const root = join(scratchDir(), 'paged-site');
  cpSync(join(REPO, 'content'), join(root, 'content'), { recursive: true });
  // errata.yaml's `reports:` names the diagnosis cases; the copy needs them beside it.
  cpSync(join(REPO, 'bench', 'cases'), join(root, 'bench', 'cases'), { recursive: true });
  const config = readFileSync(join(REPO, 'errata.yaml'), 'utf8');
  writeFileSync(join(root, 'errata.yaml'), `paginate_by: ${PER_PAGE}\n${config}`);
  const out = join(root, 'public');
  const r = spawnSync(BIN, ['build', '--root', root, '--output', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`errata build failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  env.total = JSON.parse(readFileSync(join(out, 'entries.json'), 'utf8')).entries.length;
  env.server = await startServer(out);
  env.browser = await launchBrowser();
});
after(async () => {
  if (env.browser) await env.browser.close();
  if (env.server) await env.server.close();
});

test('all failures: the pager walks every page, and every entry is on one of them', { timeout: 60000 }, async (t) => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
  t.after(() => context.close().catch(() => {}));
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const pages = Math.ceil(env.total / PER_PAGE);
  assert.ok(pages >= 3, `the content has ${env.total} entries: too few to test pages of ${PER_PAGE}`);

  await page.goto(env.server.origin + '/failures/');
  const seen = [];
  for (let n = 1; n <= pages; n++) {
    const cards = await page.locator('.cards-list .card > h2 > a').evaluateAll((as) => as.map((a) => a.pathname));
    assert.equal(cards.length, n < pages ? PER_PAGE : env.total - PER_PAGE * (pages - 1), `cards on page ${n}`);
    seen.push(...cards);
    assert.equal(await page.locator('.pager [aria-current="page"]').innerText(), String(n), 'the current page is marked');
    assert.match(await page.locator('.page-meta').innerText(), new RegExp(`${env.total} entries, page ${n} of ${pages}`));
    assert.equal(await page.locator('head link[rel="prev"]').count(), n > 1 ? 1 : 0);
    assert.equal(await page.locator('head link[rel="next"]').count(), n < pages ? 1 : 0);
    if (n === 2) {
      await page.evaluate(axeScript());
      const { violations } = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
      const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(serious.map((v) => `${v.id}: ${v.help}`), [], 'no serious axe violations on a paged list');
      await screenshot(page, 'pager-page-2');
    }
    if (n < pages) {
      await Promise.all([page.waitForNavigation(), page.click('.pager a[rel="next"]')]);
      assert.ok(page.url().endsWith(`/failures/page/${n + 1}/`), `Next leads to page ${n + 1}: ${page.url()}`);
    }
  }
  assert.equal(await page.locator('.pager a[rel="next"]').count(), 0, 'the last page has no Next link');
  assert.equal(new Set(seen).size, env.total, 'every entry appears once across the pages');
  // Back to the first page by its number.
  await Promise.all([page.waitForNavigation(), page.click('.pager-pages a:text-is("1")')]);
  assert.ok(page.url().endsWith('/failures/'), page.url());
  // Each card leads to an entry page that exists.
  const res = await page.goto(env.server.origin + seen[seen.length - 1]);
  assert.equal(res.status(), 200);
  assert.deepEqual(errors, []);
});
