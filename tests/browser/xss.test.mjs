// Script injection, proved in Chromium. Every payload below is put into every place content
// can reach a page: Markdown bodies (paragraphs, headings, lists, tables, quotes, links,
// images, footnotes, #tags), every front-matter string, reference titles and URLs, the search
// box through ?q=, a pasted log and a dropped log. A recorder set before any page script
// counts every payload that runs, every CSP violation (an injected element that only the CSP
// stopped still counts as a failure), and the DOM is scanned for handlers, script URLs and
// elements that content must never create.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, launchBrowser, scratchDir, startServer, pasteInto } from './harness.mjs';

// Each payload calls hit(<its number>) if it ever runs.
const RAW = [
  '<script>hit(N)</script>',
  '<img src=x onerror="hit(N)">',
  '<svg onload="hit(N)"></svg>',
  '<svg><script>hit(N)</script></svg>',
  '<iframe src="javascript:hit(N)"></iframe>',
  '<iframe srcdoc="<script>parent.hit(N)</script>"></iframe>',
  '<object data="javascript:hit(N)"></object>',
  '<embed src="javascript:hit(N)">',
  '<details open ontoggle="hit(N)">x</details>',
  '<body onload="hit(N)">',
  '<input autofocus onfocus="hit(N)">',
  '<video><source onerror="hit(N)"></video>',
  '<math><mtext><table><mglyph><style><img src=x onerror="hit(N)">',
  '<a href="javascript:hit(N)" id="xss-a-N">a</a>',
  '<meta http-equiv="refresh" content="0;url=javascript:hit(N)">',
  '<base href="javascript:hit(N)//">',
  '<style>@import "javascript:hit(N)";</style>',
  '"><img src=x onerror="hit(N)">',
  "'><svg onload='hit(N)'>",
  '</textarea><script>hit(N)</script>',
  '</title><script>hit(N)</script>',
  '</script><script>hit(N)</script>',
  '{{ hit(N) }}{% raw %}<script>hit(N)</script>',
  '<scr<script>ipt>hit(N)</scr</script>ipt>',
  '&lt;script&gt;hit(N)&lt;/script&gt;',
];
const MARKDOWN_ONLY = [
  '[click](javascript:hit(N))',
  '[click](JaVaScRiPt:hit(N))',
  '[click]( javascript:hit(N) )',
  '[click](java&#115;cript:hit(N))',
  '[click](&#106;avascript:hit(N))',
  '<javascript:hit(N)>',
  '![img](javascript:hit(N))',
  '[click](data:text/html;base64,PHNjcmlwdD5oaXQoMSk8L3NjcmlwdD4=)',
  '[click](vbscript:hit(N))',
  '[ref-N]\n\n[ref-N]: javascript:hit(N)',
  '[click](@/xss-01 "\\"><img src=x onerror=hit(N)>")',
  '[click](https://example.org/ "x\\" onmouseover=\\"hit(N)")',
];
const payloads = (list, from) => list.map((p, i) => p.replaceAll('N', String(from + i)));
const INLINE = payloads(RAW, 1);
const MD = payloads(MARKDOWN_ONLY, 1 + RAW.length);
const ALL = [...INLINE, ...MD];

const env = { browser: null, server: null, origin: null, slugs: [] };

function writeSite(root) {
  mkdirSync(join(root, 'content', 'memory'), { recursive: true });
  writeFileSync(join(root, 'errata.yaml'), [
    'title: XSS fixture', 'base_url: https://errata.example/',
    'categories:', '  memory:', '    title: Memory', '    description: ' + JSON.stringify(INLINE[0] + ' ' + MD[0]), '',
  ].join('\n'));
  INLINE.forEach((p, i) => {
    const q = JSON.stringify(p);
    const slug = `xss-${String(i + 1).padStart(2, '0')}`;
    env.slugs.push(slug);
    const md = MD[i % MD.length];
    writeFileSync(join(root, 'content', 'memory', slug + '.md'), [
      '---',
      `title: ${q}`,
      'category: memory',
      'severity: high',
      'tags: [oom, xss-tag]',
      `summary: ${q}`,
      'signatures:',
      `  - ${q}`,
      `fingerprint: ${q}`,
      'symptoms:',
      `  - symptom: ${q}`,
      `    why: ${JSON.stringify(md)}`,
      'root_causes:',
      `  - ${q}`,
      `fix: ${JSON.stringify(p + ' ' + md)}`,
      'affects:',
      `  - ${q}`,
      'confirm:',
      `  - ${q}`,
      'references:',
      `  - title: ${q}`,
      `    url: ${JSON.stringify('https://example.org/?q="><script>hit(' + (i + 1) + ')</script>')}`,
      '---',
      `# ${p}`,
      '',
      `${p} in a paragraph, and #oom ${p}`,
      '',
      `- ${p}`,
      `- ${md}`,
      '',
      `| a | b |`, `|---|---|`, `| ${p.replaceAll('|', '\\|')} | ${md.replaceAll('|', '\\|')} |`,
      '',
      `> ${p}`,
      '',
      md,
      '',
      `[text ${p}](https://example.org/) and a footnote[^n].`,
      '',
      `[^n]: ${p}`,
      '',
      '```html',
      p,
      '```',
      '',
    ].join('\n'));
  });
}

/* Set before any page script: counts payloads that run and CSP violations. */
function recorder() {
  window.__hits = [];
  window.hit = (n) => { window.__hits.push(n); };
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
  }, true);
}

/* What content must never have put into the DOM. */
function scanDom() {
  const bad = [];
  for (const el of document.querySelectorAll('*')) {
    for (const a of el.attributes) {
      const name = a.name.toLowerCase();
      const v = a.value.trim().toLowerCase();
      if (name.startsWith('on')) bad.push(`${el.tagName} ${name}`);
      if (['href', 'src', 'action', 'formaction', 'data', 'srcdoc', 'xlink:href'].includes(name)
        && (v.startsWith('javascript:') || v.startsWith('vbscript:') || v.startsWith('data:text/html') || name === 'srcdoc')) {
        bad.push(`${el.tagName} ${name}=${a.value}`);
      }
    }
    const tag = el.tagName.toLowerCase();
    if (['iframe', 'object', 'embed', 'base', 'form', 'input', 'video', 'math', 'details'].includes(tag)
      && !el.closest('[data-theme-owned]') && !(tag === 'input' && el.id === 'search-input')
      && !(tag === 'form' && el.id === 'search-form') && !(tag === 'input' && el.type === 'file')
      // The theme's own "Confirm it" checklist; the payload text sits beside it, as text.
      && !(tag === 'input' && el.type === 'checkbox' && el.attributes.length === 1
        && el.parentElement.matches('ul.checklist > li > label'))
      && !(tag === 'details' && (el.id === 'diagnosis-collateral' || el.closest('.faq, #faq, .toc, nav')))) {
      bad.push(`<${tag}> element ${el.outerHTML.slice(0, 120)}`);
    }
    if (tag === 'meta' && (el.getAttribute('http-equiv') || '').toLowerCase() === 'refresh') bad.push('meta refresh');
    if (tag === 'script' && el.type !== 'application/ld+json' && !/\/static\/[a-z-]+\.js$/.test(el.src || '')) {
      bad.push(`script ${el.src || el.textContent.slice(0, 60)}`);
    }
    if (tag === 'style' && /hit\(/.test(el.textContent)) bad.push('style element from content');
  }
  return bad;
}

before(async () => {
  const root = join(scratchDir(), 'xss-site');
  writeSite(root);
  const out = join(scratchDir(), 'xss-public');
  const r = spawnSync(BIN, ['build', '--root', root, '--output', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build of the XSS site failed:\n${r.stderr}`);
  env.server = await startServer(out);
  env.origin = env.server.origin;
  env.browser = await launchBrowser();
});

after(async () => {
  if (env.browser) await env.browser.close();
  if (env.server) await env.server.close();
});

async function open(t) {
  const context = await env.browser.newContext();
  t.after(() => context.close().catch(() => {}));
  await context.addInitScript(recorder);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', (d) => { errors.push(`dialog ${d.message()}`); d.dismiss().catch(() => {}); });
  return { page, errors };
}

async function assertClean(page, errors, where) {
  await page.waitForTimeout(150); // let onload/onerror/ontoggle handlers fire if any exist
  const state = await page.evaluate(() => ({ hits: window.__hits, violations: window.__violations }));
  const dom = await page.evaluate(scanDom);
  assert.deepEqual(state.hits, [], `${where}: payloads ran`);
  assert.deepEqual(state.violations, [], `${where}: the CSP had to stop something content injected`);
  assert.deepEqual(dom, [], `${where}: dangerous markup in the DOM`);
  assert.deepEqual(errors, [], `${where}: page errors or dialogs`);
}

test(`${ALL.length} payloads in every field of ${INLINE.length} entries: nothing runs on any page`, { timeout: 180000 }, async (t) => {
  const { page, errors } = await open(t);
  const paths = ['/', '/failures/', '/memory/', '/tags/', '/tags/oom/', '/tags/xss-tag/', '/404.html',
    ...env.slugs.map((s) => `/memory/${s}/`)];
  for (const p of paths) {
    const res = await page.goto(env.origin + p, { waitUntil: 'load' });
    assert.equal(res.status(), p === '/404.html' ? 200 : 200, p);
    // Opening every details and hovering links gives toggle/focus handlers their chance.
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
    await assertClean(page, errors, p);
  }
  // The payload text is shown as text on its entry page.
  await page.goto(env.origin + `/memory/${env.slugs[0]}/`);
  assert.ok((await page.locator('main#main h1').first().textContent()).includes('<script>hit(1)</script>'));
  t.diagnostic(`${ALL.length} payloads, ${paths.length} pages, ${INLINE.length * 14 + MD.length * 3} placements: 0 ran`);
});

test('payloads through ?q=, a pasted log and a dropped log stay text', { timeout: 180000 }, async (t) => {
  const { page, errors } = await open(t);
  for (const p of ALL) {
    await page.goto(env.origin + '/search/?q=' + encodeURIComponent(p), { waitUntil: 'load' });
    await page.waitForFunction(() => !document.getElementById('search-results')?.hasAttribute('aria-busy'));
    await assertClean(page, errors, `?q=${p}`);
  }
  const log = ALL.map((p, i) => `[rank${i % 8}]: ${p}`).join('\n')
    + '\n[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB <img src=x onerror="hit(999)">\n';
  await page.goto(env.origin + '/search/');
  await page.evaluate(() => window.errataSearch.ready);
  await pasteInto(page, '#search-input', log);
  await page.waitForSelector('section#diagnosis:not([hidden])');
  await assertClean(page, errors, 'pasted log');
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], '<img src=x onerror=hit(998)>.log', { type: 'text/plain' }));
    const form = document.getElementById('search-form');
    for (const type of ['dragenter', 'dragover', 'drop']) form.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, log);
  await page.waitForFunction(() => /onerror/.test(document.getElementById('diagnosis-source')?.textContent || ''));
  await assertClean(page, errors, 'dropped log');
  t.diagnostic(`${ALL.length} queries, 1 pasted and 1 dropped log of ${ALL.length + 1} payload lines: 0 ran`);
});

test('the recorder and the DOM scan do see an injection (so the tests above can fail)', { timeout: 60000 }, async (t) => {
  const { page } = await open(t);
  await page.goto(env.origin + '/');
  await page.evaluate(() => {
    const div = document.createElement('div');
    div.innerHTML = '<img src=x onerror="hit(0)"><a href="javascript:hit(0)">x</a>';
    document.body.appendChild(div);
  });
  await page.waitForTimeout(300);
  const violations = await page.evaluate(() => window.__violations);
  const dom = await page.evaluate(scanDom);
  assert.ok(violations.length > 0, 'the CSP violation of the injected handler is recorded');
  assert.ok(dom.some((d) => d.includes('onerror')) && dom.some((d) => d.includes('javascript:')), JSON.stringify(dom));
});
