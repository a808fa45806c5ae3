// An entry page's own controls: the one table of contents (a row of links under the title on
// a phone, a sticky column beside the article on a desktop) and the signatures' copy buttons,
// which copy the signature the page holds once; and the FAQ questions' open/closed chevron.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setupSuite, openPage } from './harness.mjs';

const env = setupSuite();
const ENTRY = '/memory/cuda-oom-batch-too-large/';

const boxes = (page) => page.evaluate(() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
  return {
    tocs: document.querySelectorAll('nav.toc').length,
    toc: box(document.querySelector('nav.toc .toc-inner')),
    head: box(document.querySelector('.entry-head')),
    firstSection: box(document.querySelector('.entry > section')),
    text: box(document.querySelector('.entry-body p')),
    links: [...document.querySelectorAll('nav.toc .toc-list a')].map((a) => a.getAttribute('href')),
  };
});

test('desktop: the table of contents is a column beside the article and stays in view', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t, { viewport: { width: 1280, height: 900 } });
  await page.goto(url(ENTRY));
  const b = await boxes(page);
  assert.equal(b.tocs, 1, 'one table of contents in the page');
  assert.ok(b.links.includes('#signatures') && b.links.includes('#related'), `its links: ${b.links}`);
  assert.ok(b.toc.left >= b.text.right, `beside the text, not over it: ${JSON.stringify(b)}`);
  assert.ok(b.toc.top < 400, `at the top of the page: ${JSON.stringify(b.toc)}`);
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight / 2));
  await page.waitForTimeout(50);
  const after = await boxes(page);
  assert.ok(after.toc.top >= 0 && after.toc.top < 100, `still in view after a scroll: ${JSON.stringify(after.toc)}`);
  assert.deepEqual(errors, []);
});

test('phone: the table of contents comes between the title and the first section', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await page.goto(url(ENTRY));
  const b = await boxes(page);
  assert.equal(b.tocs, 1);
  assert.ok(b.toc.top >= b.head.bottom && b.toc.bottom <= b.firstSection.top, `in the flow: ${JSON.stringify(b)}`);
  assert.ok(b.toc.bottom - b.toc.top < 400, `compact: ${JSON.stringify(b.toc)}`);
  await page.click('nav.toc a[href="#related"]');
  await page.waitForFunction(() => location.hash === '#related');
  assert.deepEqual(errors, []);
});

test("a signature's copy button copies that signature", { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url(ENTRY));
  await page.evaluate(() => {
    window.__copied = [];
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: (text) => { window.__copied.push(text); return Promise.resolve(); } },
    });
  });
  // The first signature's origin line under it holds <code> too: the button copies the
  // signature's own.
  const first = page.locator('li.signature').first();
  const text = await page.evaluate(() => document.querySelector('li.signature > code').textContent);
  assert.ok(await first.locator('.signature-origin code').count() > 0, 'the origin line has code of its own');
  await first.locator('button.copy').click();
  await page.waitForFunction(() => window.__copied.length === 1);
  assert.deepEqual(await page.evaluate(() => window.__copied), [text]);
  assert.equal(await first.locator('button.copy').textContent(), 'Copied');
  assert.deepEqual(errors, []);
});

test('an FAQ question shows a chevron that turns when it opens', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url(ENTRY));
  const chevron = () => page.evaluate(() => {
    const s = getComputedStyle(document.querySelector('.faq > details > summary'), '::after');
    return { border: s.borderRightStyle, transform: s.transform };
  });
  const closed = await chevron();
  assert.equal(closed.border, 'solid', 'the chevron is drawn');
  await page.click('.faq > details > summary');
  const open = await chevron();
  assert.notEqual(open.transform, closed.transform, 'it turns when the question opens');
  assert.deepEqual(errors, []);
});

test("the script makes the contents, the headings' links and the copy buttons from the page", { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t);
  await page.goto(url(ENTRY));
  const got = await page.evaluate(() => ({
    // Every section heading but the affected systems, and the body's h2 and h3, in order.
    headings: [...document.querySelectorAll('.entry h2[id], .entry-body h3[id]')]
      .filter((h) => h.id !== 'affects' && !h.closest('nav')).map((h) => '#' + h.id),
    toc: [...document.querySelectorAll('nav.toc .toc-list a')].map((a) => a.getAttribute('href')),
    tocTitle: document.querySelector('nav.toc #toc-title')?.textContent,
    bodyHeadings: document.querySelectorAll('.entry-body :is(h2, h3)[id]').length,
    anchors: [...document.querySelectorAll('.entry-body :is(h2, h3)[id] > a.anchor:first-child')]
      .map((a) => a.getAttribute('href') === '#' + a.parentElement.id && a.getAttribute('aria-hidden') === 'true'),
    signatures: document.querySelectorAll('li.signature').length,
    buttons: document.querySelectorAll('li.signature > code + button.copy').length,
  }));
  assert.ok(got.toc.length >= 8, `${got.toc}`);
  assert.deepEqual(got.toc, got.headings);
  assert.equal(got.tocTitle, 'On this page');
  assert.ok(got.bodyHeadings > 0);
  assert.deepEqual(got.anchors, Array(got.bodyHeadings).fill(true));
  assert.ok(got.signatures > 0);
  assert.equal(got.buttons, got.signatures, 'one copy button after each signature');
  assert.deepEqual(errors, []);
});

test('without scripts the empty contents take no room; badges still say what they are', { timeout: 60000 }, async (t) => {
  const { page, errors, url } = await openPage(env, t, { javaScriptEnabled: false });
  await page.goto(url(ENTRY));
  const toc = await page.evaluate(() => document.querySelector('nav.toc').getBoundingClientRect().height);
  assert.equal(toc, 0);
  // A screen reader hears "Severity: high" and "Category: Memory": the words are in the
  // badges' ::before, which the accessibility tree holds.
  const tree = await page.locator('.entry-head .badges').ariaSnapshot();
  assert.match(tree, /Category: Memory/);
  assert.match(tree, /Severity: (low|medium|high|critical)/);
  assert.deepEqual(errors, []);
});
