// Figures for search in the browser, measured in Debian's headless Chromium over localhost:
// module and bundle sizes (raw, gzip, brotli), time from the first keystroke to the first
// result on a cold cache, the query median inside the page, and the time to diagnose a
// 100,000-line log in the worker.
//
//   node bench/browser-speed.mjs SITE_DIR [LOG_FILE]
// (uses playwright-core from tests/browser/node_modules; SITE_DIR is a built site)
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { createRequire } from 'node:module';
import { serveStatic } from './static-server.mjs';

const require = createRequire(new URL('../tests/browser/package.json', import.meta.url));
const { chromium } = require('playwright-core');
const site = process.argv[2];
const logFile = process.argv[3];
if (!site) { console.error('usage: node bench/browser-speed.mjs SITE_DIR [LOG_FILE]'); process.exit(2); }

const { base, close } = await serveStatic((pathname) => [site, pathname]);

// The page's scripts (errata.js and its parts) and the worker.
const pageScripts = (dir) => readdirSync(join(dir, 'static'))
  .filter((f) => /^errata(-[a-z]+)?\.js$/.test(f) || f === 'search-worker.js')
  .sort()
  .map((f) => `static/${f}`);

const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
for (const [name, path] of [['module', 'static/errata-search.wasm'], ['first-search statistics', 'search/first/meta.json'],
  ['full index', 'search/errata.bundle'], ['worker + page JS', null]]) {
  const bytes = path ? readFileSync(join(site, path)) : Buffer.concat(pageScripts(site).map((f) => readFileSync(join(site, f))));
  const gz = gzipSync(bytes, { level: 9 }).length;
  const br = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  console.log(`${name}: ${kb(bytes.length)} raw, ${kb(gz)} gzip, ${kb(br)} brotli`);
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const firsts = [];
for (let run = 0; run < 5; run++) {
  const context = await browser.newContext(); // cold cache each run
  const page = await context.newPage();
  await page.goto(`${base}/search/`);
  const t0 = Date.now();
  await page.click('#search-input');
  await page.keyboard.type('ncclUnhandledCudaError', { delay: 0 });
  await page.waitForSelector('#search-results-list li.result', { timeout: 20000 });
  firsts.push(Date.now() - t0);
  await context.close();
}
console.log(`first result after the first keystroke, cold cache (5 runs): median ${median(firsts)} ms (${firsts.join(', ')})`);

const page = await browser.newPage();
await page.goto(`${base}/search/`);
const inPage = await page.evaluate(async () => {
  await window.errataSearch.ready;
  const qs = ['torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB', 'Watchdog caught collective operation timeout', 'RuntimeError: Expected all tensors to be on the same device', 'loss is nan', 'c10::Error'];
  const times = [];
  for (let i = 0; i < 40; i++) for (const q of qs) { const t = performance.now(); await window.errataSearch.search(q, 10); times.push(performance.now() - t); }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
});
console.log(`query in the page through the worker (200 runs, round trip): median ${inPage.toFixed(2)} ms`);
if (logFile) {
  const text = readFileSync(logFile, 'utf8');
  const ms = await page.evaluate(async (t) => { const s = performance.now(); await window.errataSearch.diagnose(t); return performance.now() - s; }, text);
  console.log(`diagnose ${text.split('\n').length - 1} lines (${(text.length / 1e6).toFixed(1)} MB) in the worker: ${ms.toFixed(0)} ms`);
}
await browser.close();
close();
console.log(`command: node bench/browser-speed.mjs ${site}${logFile ? ' ' + logFile : ''}`);
