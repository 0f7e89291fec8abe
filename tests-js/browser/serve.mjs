// A minimal static file server for the browser tests and the browser sweep (bench/browser/), bound
// to 127.0.0.1 on a free port. Options: `headers`, sent with every response (the browser sweep sends
// COOP/COEP, for cross-origin isolation); `routes`, a Map of URL path → body (a Buffer, or a
// function returning one) served before the files: data that lives in memory, looked up when
// requested, so a test may add entries after the server started.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css' };

export function serve(root, { headers = {}, routes = new Map() } = {}) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    try {
      const route = routes.get(path);
      const body = route !== undefined ? (typeof route === 'function' ? route() : route) : await readFile(join(root, path));
      res.writeHead(200, { ...headers, 'content-type': route !== undefined ? 'application/octet-stream' : TYPES[extname(path)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, headers).end('not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
