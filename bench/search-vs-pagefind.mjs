// errata's search bundle against Pagefind on the same built site, in Debian's headless Chromium.
//
//   node bench/search-vs-pagefind.mjs N        (N entries from bench/gen-corpus; default 1000)
//
// Needs `npm ci` in bench/pagefind (Pagefind 1.6.0; its binary ships in the npm package) and in
// tests/browser (playwright-core). Builds the corpus with the release errata, copies the site
// and marks each entry page's <main> with data-pagefind-body (so Pagefind indexes the entries,
// as errata does, not the tag and list pages), runs Pagefind on the copy, then compares:
//   index build time (errata: its search-bundle step; Pagefind: its whole run), index size on
//   disk, bytes a browser downloads for its first search (search code: the module,
//   errata.js (the theme's parts joined) and search-worker.js, + what the first answer
//   needs: errata's first-search files, the full index held back until that answer; gzip, each file counted at the smaller of raw and
//   gzip since Pagefind's files come compressed already), the same without the module (a
//   browser that has it cached),
//   bytes for each later query, and query time in the page (median over queries already loaded).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { serveStatic } from './static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const top = dirname(here);
const require = createRequire(join(top, 'tests', 'browser', 'package.json'));
const { chromium } = require('playwright-core');
const n = Number(process.argv[2] || 1000);
const out = join(here, 'out');
const corpus = join(out, `corpus-${n}`);
const errataSite = join(out, `pf-errata-${n}`);
const pfSite = join(out, `pf-pagefind-${n}`);
const pagefind = join(here, 'pagefind', 'node_modules', '.bin', 'pagefind');
if (!existsSync(pagefind)) { console.error('run `npm ci` in bench/pagefind first'); process.exit(2); }

if (!existsSync(corpus)) execFileSync(join(here, 'gen-corpus'), [String(n), corpus], { stdio: 'inherit' });
execFileSync('cargo', ['build', '--release', '-q'], { cwd: top, stdio: 'inherit' });
const build = spawnSync(join(top, 'target', 'release', 'errata'), ['build', '--root', corpus, '--output', errataSite],
  { env: { ...process.env, ERRATA_TIMINGS: '1' }, encoding: 'utf8', maxBuffer: 1 << 30 });
if (build.status !== 0) { console.error(build.stderr); process.exit(1); }
const bundleMs = Number(/of which the search bundle: (\d+) ms/.exec(build.stderr)[1]);

rmSync(pfSite, { recursive: true, force: true });
cpSync(errataSite, pfSite, { recursive: true });
const walk = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]);
const categories = readdirSync(join(corpus, 'content'));
let marked = 0;
for (const f of walk(pfSite)) {
  const rel = relative(pfSite, f).split('/');
  if (rel.length === 3 && rel[2] === 'index.html' && categories.includes(rel[0])) {
    writeFileSync(f, readFileSync(f, 'utf8').replace('<main id="main"', '<main data-pagefind-body id="main"'));
    marked++;
  }
}
const t0 = Date.now();
const pf = spawnSync(pagefind, ['--site', pfSite], { encoding: 'utf8' });
const pagefindMs = Date.now() - t0;
if (pf.status !== 0) { console.error(pf.stdout, pf.stderr); process.exit(1); }
const dirBytes = (d) => walk(d).reduce((s, f) => s + statSync(f).size, 0);

// One server for both sites: /e/... is errata's, /p/... the Pagefind copy; /blank.html has no CSP.
const { base, close } = await serveStatic((pathname) => {
  const [, which, ...rest] = pathname.split('/');
  const root = which === 'e' ? errataSite : which === 'p' ? pfSite : null;
  return root ? [root, '/' + rest.join('/')] : null;
}, { '/blank.html': '<!doctype html><title>bench</title>' });

const QUERIES = ['allocator', 'collective timeout', 'checkpoint', 'gradient overflow', 'cuda kernel', 'tensor shape',
  'optimizer', 'dataloader worker', 'compile graph', 'memory fragmentation', 'rank barrier', 'nan loss'];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const gz = (buf) => Math.min(buf.length, gzipSync(buf, { level: 9 }).length);

async function measure(kind) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const seen = [];
  const module = [];
  page.on('response', async (r) => {
    const u = new URL(r.url());
    const search = kind === 'errata'
      ? /\/(errata[\w-]*\.js|search-worker\.js|errata-search\.wasm|errata\.bundle)$|\/search\/first\//.test(u.pathname)
      : u.pathname.includes('/pagefind/');
    if (!search) return;
    const bytes = r.body().then(gz, () => 0);
    seen.push(bytes);
    if (/\.wasm$|\/wasm\.[\w-]*\.pagefind$/.test(u.pathname)) module.push(bytes);
  });
  // errata answers the first query from its first-search files and fetches the full index
  // after it: the full index is held back until that answer has come, so it cannot be counted
  // in the first search's bytes by accident, nor be needed for it without the run hanging.
  let release = () => {};
  if (kind === 'errata') {
    const held = new Promise((r) => { release = r; });
    await page.route('**/e/search/errata.bundle', async (route) => { await held; await route.continue(); });
    await page.goto(`${base}/e/search/`);
  } else {
    await page.goto(`${base}/blank.html`);
    await page.evaluate(async (b) => { window.pf = await import(b + '/p/pagefind/pagefind.js'); }, base);
  }
  const run = (q, quick) => page.evaluate(async ([k, q, quick]) => {
    const t = performance.now();
    if (k === 'errata') {
      await (quick ? window.errataSearch.firstReady : window.errataSearch.ready);
      const r = await window.errataSearch.search(q, 10);
      return { ms: performance.now() - t, hits: (r.hits || r.results || []).length, sinceNavigation: performance.now() };
    }
    const r = await window.pf.search(q);
    const top = await Promise.all(r.results.slice(0, 10).map((x) => x.data()));
    return { ms: performance.now() - t, hits: top.length, sinceNavigation: performance.now() };
  }, [kind, q, quick]);
  const first = await run(QUERIES[0], true);
  // Cold: from the start of the page's navigation to ten results (errata starts its engine
  // while the page loads; Pagefind loads when imported).
  first.ms = first.sinceNavigation;
  const total = async () => { await page.waitForTimeout(100); return (await Promise.all(seen)).reduce((a, b) => a + b, 0); };
  const firstBytes = await total();
  const moduleBytes = (await Promise.all(module)).reduce((a, b) => a + b, 0);
  release();
  if (kind === 'errata') await page.evaluate(() => window.errataSearch.ready);
  const backgroundBytes = (await total()) - firstBytes;
  const later = [];
  for (const q of QUERIES.slice(1)) {
    const before = await total();
    await run(q);
    later.push((await total()) - before);
  }
  const warm = [];
  for (let i = 0; i < 3; i++) for (const q of QUERIES) warm.push((await run(q)).ms);
  await context.close();
  return { firstMs: first.ms, firstHits: first.hits, firstBytes, moduleBytes, backgroundBytes, laterBytes: median(later), warmMs: median(warm) };
}

const e = await measure('errata');
const p = await measure('pagefind');
await browser.close();
close();
const kb = (b) => `${(b / 1024).toFixed(0)} KB`;
const errataIndexBytes = statSync(join(errataSite, 'search', 'errata.bundle')).size
  + dirBytes(join(errataSite, 'search', 'first'));
const rows = [
  ['index build', `${bundleMs} ms`, `${pagefindMs} ms`, (bundleMs / pagefindMs).toFixed(2)],
  ['index on disk (the bundle and the first-search files)', kb(errataIndexBytes), kb(dirBytes(join(pfSite, 'pagefind'))),
    (errataIndexBytes / dirBytes(join(pfSite, 'pagefind'))).toFixed(2)],
  ['first search: bytes downloaded (gzip)', kb(e.firstBytes), kb(p.firstBytes), (e.firstBytes / p.firstBytes).toFixed(2)],
  ['first search, the search module already cached: bytes (gzip)', kb(e.firstBytes - e.moduleBytes),
    kb(p.firstBytes - p.moduleBytes), ((e.firstBytes - e.moduleBytes) / (p.firstBytes - p.moduleBytes)).toFixed(2)],
  ['after the first search: full index in the background (gzip)', kb(e.backgroundBytes), kb(p.backgroundBytes), '-'],
  ['first search: page start to 10 results, cold', `${e.firstMs.toFixed(0)} ms`, `${p.firstMs.toFixed(0)} ms`, (e.firstMs / p.firstMs).toFixed(2)],
  ['later query: bytes (median)', kb(e.laterBytes), kb(p.laterBytes), p.laterBytes ? (e.laterBytes / p.laterBytes).toFixed(2) : '-'],
  ['query time, warm (median)', `${e.warmMs.toFixed(2)} ms`, `${p.warmMs.toFixed(2)} ms`, (e.warmMs / p.warmMs).toFixed(2)],
];
const table = ['| N = ' + n + ' | errata | Pagefind 1.6.0 | errata / Pagefind |', '|---|---|---|---|',
  ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
console.log(table);
console.log(`(${marked} entry pages indexed by Pagefind; first-search results: errata ${e.firstHits}, Pagefind ${p.firstHits})`);
const cmd = `node bench/search-vs-pagefind.mjs ${n}`;
console.log(`command: ${cmd}`);
// results.md keeps one section per command, beside the build benchmark's sections.
const resultsPath = join(here, 'results.md');
const section = `<!-- ${cmd} -->\n## Search at ${n.toLocaleString('en-US')} entries: errata and Pagefind\n\n` +
  'Headless Chromium (Debian), one run; query time is the median over the queries already loaded. ' +
  'errata\'s first search counts the module, the page\'s script (static/errata.js, the theme\'s parts joined) and the worker\'s, and the first-search ' +
  'files the query fetched, with the full index held back until the first answer came; the full ' +
  'index is a later row. "Module already cached" leaves out the WebAssembly module (errata\'s ' +
  'errata-search.wasm, Pagefind\'s wasm.*.pagefind).\n\n' +
  `${table}\n\n(${marked} entry pages indexed by Pagefind; first-search results: errata ${e.firstHits}, Pagefind ${p.firstHits})\n\n` +
  `Command: \`${cmd}\`\n<!-- end -->\n`;
let results = existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8') : '# Benchmarks\n';
const at = results.indexOf(`<!-- ${cmd} -->`);
if (at >= 0) {
  const end = results.indexOf('<!-- end -->\n', at) + '<!-- end -->\n'.length;
  results = results.slice(0, at) + section + results.slice(end);
} else {
  results = results.replace(/\n*$/, '\n\n') + section;
}
writeFileSync(resultsPath, results);
console.log('written to bench/results.md');
