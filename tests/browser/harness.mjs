// Shared set-up of the browser tests: a built site, a static server for it, one headless
// Chromium per test file, a fresh context per test, and the errata CLI for comparisons.
//
//   ERRATA_SITE  a built site folder to test (default: build one into a temp folder)
//   ERRATA_BIN   the errata binary (default: <repo>/target/debug/errata)
//   CHROMIUM     the browser (default: /usr/bin/chromium)

import { before, after } from 'node:test';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(here, '..', '..');
export const BIN = process.env.ERRATA_BIN || join(REPO, 'target', 'debug', 'errata');
export const SHOT_DIR = join(REPO, 'target', 'browser-screenshots');
export const AXE_PATH = join(here, 'node_modules', 'axe-core', 'axe.min.js');

export const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

/* ---------- temp files (removed when the process exits) ---------- */
let scratch = null;
export function scratchDir() {
  if (!scratch) {
    scratch = mkdtempSync(join(tmpdir(), 'errata-browser-'));
    process.on('exit', () => { try { rmSync(scratch, { recursive: true, force: true }); } catch { /* ignore */ } });
  }
  return scratch;
}

let fileSeq = 0;
export function writeTemp(name, text) {
  const p = join(scratchDir(), `${++fileSeq}-${name}`);
  writeFileSync(p, text);
  return p;
}

/* ---------- the site ---------- */
let siteCache = null;
/** The folder of the built site: ERRATA_SITE, or a fresh build (once per process). */
export function siteDir() {
  if (siteCache) return siteCache;
  if (process.env.ERRATA_SITE) {
    siteCache = resolve(process.env.ERRATA_SITE);
  } else {
    if (!existsSync(BIN)) throw new Error(`no errata binary at ${BIN}: build it or set ERRATA_BIN / ERRATA_SITE`);
    const out = join(scratchDir(), 'site');
    const r = spawnSync(BIN, ['build', '--root', REPO, '--output', out], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`errata build failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    siteCache = out;
  }
  for (const f of ['index.html', 'search/index.html', 'search/errata.bundle', 'search/first/meta.json',
    'static/errata-search.wasm']) {
    if (!existsSync(join(siteCache, f))) throw new Error(`the site at ${siteCache} has no ${f}`);
  }
  return siteCache;
}

export function bundlePath() { return join(siteDir(), 'search', 'errata.bundle'); }

/* ---------- a static server ---------- */
export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.log': 'text/plain; charset=utf-8',
  '.bundle': 'application/octet-stream',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.stamp': 'text/plain; charset=utf-8',
};

/** Serves root on 127.0.0.1 and a free port. Resolves with { origin, close, requests }. */
export function startServer(root) {
  const base = resolve(root);
  const requests = [];
  const server = createServer((req, res) => {
    const send = (code, body) => {
      res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      return send(400, 'bad request\n');
    }
    requests.push(pathname);
    if (pathname.includes('\0') || pathname.split(/[\\/]/).includes('..')) return send(403, 'forbidden\n');
    let file = resolve(base, '.' + pathname);
    if (file !== base && !file.startsWith(base + sep)) return send(403, 'forbidden\n');
    let st;
    try { st = statSync(file); } catch { st = null; }
    if (st && st.isDirectory()) {
      if (!pathname.endsWith('/')) {
        res.writeHead(301, { Location: pathname + '/' + (new URL(req.url, 'http://x').search) });
        return res.end();
      }
      file = join(file, 'index.html');
      try { st = statSync(file); } catch { st = null; }
    }
    if (!st || !st.isFile()) return send(404, 'not found\n');
    res.writeHead(200, {
      'Content-Type': MIME[extname(file).toLowerCase()] || 'application/octet-stream',
      'Content-Length': st.size,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).pipe(res);
  });
  return new Promise((resolveP, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolveP({
        origin: `http://127.0.0.1:${port}`,
        requests,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}

/* ---------- the browser ---------- */
export function launchBrowser() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: LAUNCH_ARGS });
}

/** Registers before/after hooks for a test file; the returned object is filled in by `before`. */
export function setupSuite() {
  const env = { browser: null, server: null, origin: null, site: null };
  before(async () => {
    env.site = siteDir();
    env.server = await startServer(env.site);
    env.origin = env.server.origin;
    env.browser = await launchBrowser();
  });
  after(async () => {
    if (env.browser) await env.browser.close();
    if (env.server) await env.server.close();
  });
  return env;
}

/* Records CSP violations on window before any page script runs. */
function recordCsp() {
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__csp.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample, source: e.sourceFile });
  }, true);
}

/**
 * A fresh context and page for one test, closed when the test ends.
 * Returns { context, page, errors, url(path) }: errors collects console errors (page and
 * workers) and uncaught page errors.
 */
export async function openPage(env, t, contextOptions = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
  t.after(() => context.close().catch(() => {}));
  context.setDefaultTimeout(20000);
  context.setDefaultNavigationTimeout(20000);
  await context.addInitScript(recordCsp);
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()} @ ${m.location()?.url || ''}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e && e.stack ? e.stack : e}`));
  page.on('worker', (w) => {
    w.on('console', (m) => { if (m.type() === 'error') errors.push(`worker console: ${m.text()}`); });
  });
  page.on('crash', () => errors.push('page crashed'));
  const url = (p = '/') => env.origin + p;
  return { context, page, errors, url };
}

/** Waits for the WebAssembly engine of the page to be loaded. */
export async function engineReady(page) {
  await page.waitForFunction(() => window.errataSearch && typeof window.errataSearch.search === 'function');
  await page.evaluate(() => window.errataSearch.ready);
}

/** Waits until the search of `query` (as typed) has finished rendering on the search page. */
export async function searchSettled(page, query) {
  await page.waitForFunction((q) => {
    const res = document.getElementById('search-results');
    if (!res || res.hasAttribute('aria-busy')) return false;
    const inUrl = new URLSearchParams(location.search).get('q') || '';
    if (inUrl !== q) return false;
    const status = document.getElementById('search-status');
    const s = status ? status.textContent : '';
    // Quick results from the first-search files are not settled: the full answer follows.
    return /result|No entry matches|failed/.test(s) && !/Loading|full index is loading/.test(s);
  }, query);
}

/** The slugs of the rendered results, in order. */
export function resultSlugs(page) {
  return page.$$eval('ol#search-results-list > li.result[data-slug]', (ls) => ls.map((l) => l.getAttribute('data-slug')));
}

/** Waits for a finished diagnosis (the panel shown, the progress hidden). */
export async function diagnosisShown(page) {
  await page.waitForFunction(() => {
    const p = document.getElementById('diagnosis');
    const prog = document.getElementById('diagnosis-progress');
    return p && !p.hidden && document.getElementById('diagnosis-message') && (!prog || prog.hidden);
  });
}

/* ---------- page text helpers ---------- */
/** Puts text into the box as a paste would: a paste event with clipboardData, then the input. */
export function pasteInto(page, selector, text) {
  return page.evaluate(([sel, t]) => {
    const el = document.querySelector(sel);
    el.focus();
    const dt = new DataTransfer();
    dt.setData('text/plain', t);
    const ev = new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true });
    const notCancelled = el.dispatchEvent(ev);
    // A synthetic paste has no default action: insert the text as the browser would.
    if (notCancelled) {
      el.value = t;
      el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste', data: null }));
    }
    return notCancelled;
  }, [selector, text]);
}

/* ---------- the CLI ---------- */
function runCli(args) {
  const r = spawnSync(BIN, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  if (r.status !== 0 && r.status !== 1) throw new Error(`errata ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  let json;
  try { json = JSON.parse(r.stdout); } catch (e) {
    throw new Error(`errata ${args.join(' ')} printed no JSON (exit ${r.status}): ${e.message}\n${r.stdout.slice(0, 500)}\n${r.stderr}`);
  }
  return { status: r.status, json, stderr: r.stderr };
}

export function cliSearch(query, limit = 10) {
  return runCli(['search', '--json', '--root', REPO, '--bundle', bundlePath(), '-n', String(limit), query]);
}

export function cliDiagnose(file) {
  return runCli(['diagnose', '--json', '--root', REPO, '--bundle', bundlePath(), file]);
}

/* ---------- screenshots ---------- */
export async function screenshot(page, name, opts = {}) {
  mkdirSync(SHOT_DIR, { recursive: true });
  const path = join(SHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true, animations: 'disabled', ...opts });
  return path;
}

/* ---------- axe ---------- */
let axeSource = null;
export function axeScript() {
  if (!axeSource) axeSource = readFileSync(AXE_PATH, 'utf8');
  return axeSource;
}
