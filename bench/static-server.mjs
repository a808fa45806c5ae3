// A static file server on a free loopback port, for the browser benchmarks.
//
//   const { base, close } = await serveStatic((pathname) => [root, path] | null);
//
// `route` maps a request's decoded path to the folder that serves it and the path inside that
// folder (or null: 404); `..` anywhere is a 404, and a folder serves its index.html. Nothing is
// cached (`cache-control: no-store`), so every page load fetches what a cold visit would.
import { createServer } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.log': 'text/plain',
};

export async function serveStatic(route, extra = {}) {
  const server = createServer((req, res) => {
    const pathname = new URL(req.url, 'http://x').pathname;
    if (extra[pathname]) { res.writeHead(200, { 'content-type': 'text/html' }).end(extra[pathname]); return; }
    const routed = route(pathname);
    if (!routed) { res.writeHead(404).end(); return; }
    const [root, path] = routed;
    const p = normalize(decodeURIComponent(path));
    if (p.includes('..')) { res.writeHead(404).end(); return; }
    let file = join(root, p);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}
