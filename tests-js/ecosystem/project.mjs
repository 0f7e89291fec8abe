// Shared by the ecosystem cases: a fresh project with horosvec installed from the packed tarballs
// (npm, scripts blocked), commands with a timeout, and a page in Debian's Chromium.
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, relative } from 'node:path';
import { hostInfo, hostKey as platformHostKey } from '../../npm/lib/platform.js';

/** The napi-rs key of this host (linux-x64-gnu, darwin-arm64, …): the loader's own function. */
export const hostKey = () => platformHostKey(hostInfo(process));

/**
 * Runs `cmd args` in `cwd`; resolves with its output, rejects with the output's tail when it exits
 * non-zero or outlives `timeoutMs` (its process group is killed). `allowFail` resolves anyway.
 */
export function run(cmd, args, { cwd, env = {}, timeoutMs = 240_000, allowFail = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const r = { code, out };
      if ((code === 0 && !timedOut) || (allowFail && !timedOut)) resolve(r);
      else {
        const tail = out.trim().split('\n').slice(-25).join('\n');
        reject(new Error(`${cmd} ${args.join(' ')} ${timedOut ? `timed out after ${timeoutMs / 1000} s` : `exited ${code}`}\n${tail}`));
      }
    });
  });
}

/**
 * Starts a long-running command (a server) in its own process group and resolves once its output
 * matches `ready`, with `{ out(), stop() }`; rejects with the output if it exits or times out first.
 */
export function start(cmd, args, { cwd, env = {}, ready, timeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let settled = false;
    const stop = () =>
      new Promise((r) => {
        if (child.exitCode !== null || child.signalCode !== null) return r();
        child.once('close', () => r());
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          r();
        }
        setTimeout(() => {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // gone
          }
        }, 5000).unref();
      });
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      stop().then(() => reject(new Error(`${cmd} ${args.join(' ')}: not ready after ${timeoutMs / 1000} s\n${out.slice(-3000)}`)));
    }, timeoutMs);
    const onData = (d) => {
      out += d;
      if (!settled && ready.test(out)) {
        settled = true;
        clearTimeout(timer);
        resolve({ out: () => out, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`${cmd} ${args.join(' ')} exited ${code} before it was ready\n${out.slice(-3000)}`));
    });
  });
}

/** A free TCP port on 127.0.0.1 (for servers that want one on their command line). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Runs a command of a root devDependency's bin (e.g. `tool(ctx, 'vite/bin/vite.js', ['build'], opts)`). */
export const tool = (ctx, bin, args, opts) => run(process.execPath, [join(ctx.root, 'node_modules', bin), ...args], opts);

function writeFiles(dir, files) {
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}

/**
 * A fresh project in `dir` (default ctx.tmp): package.json (`pkg` merged over a private ESM
 * package), `files` ({ relative path: text }), then horosvec from the tarballs (the main one and
 * this host's platform package when packed) by `npm install --ignore-scripts`, from npm's cache
 * when it can. `link` names root devDependencies (tools a test imports, e.g. vitest) to symlink
 * into its node_modules. Returns the project's directory after checking that `horosvec` resolves
 * inside it, to the installed copy (never the workspace's).
 */
export async function freshProject(ctx, { dir = ctx.tmp, pkg = {}, files = {}, link = [] } = {}) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'eco-case', version: '0.0.0', private: true, type: 'module', ...pkg }, null, 2));
  writeFiles(dir, files);
  const tarballs = [ctx.tarballs.main];
  const platform = ctx.tarballs.platforms[hostKey()];
  if (platform) tarballs.push(platform);
  await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...tarballs], { cwd: dir, timeoutMs: 180_000 });
  for (const name of link) {
    const to = join(dir, 'node_modules', name);
    mkdirSync(dirname(to), { recursive: true });
    if (!existsSync(to)) symlinkSync(join(ctx.root, 'node_modules', name), to);
  }
  const installed = join(dir, 'node_modules', 'horosvec');
  if (!existsSync(join(installed, 'package.json')) || lstatSync(installed).isSymbolicLink()) {
    throw new Error(`horosvec is not installed from the tarball in ${dir}`);
  }
  return dir;
}

/** Files under `dir` (recursive) whose name passes `test`. */
export function filesUnder(dir, test = () => true) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (test(p)) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** Throws if any file under `dir` is a `.node` addon, or embeds one's name or ELF/Mach-O/PE bytes. */
export function assertNoAddon(dir, what) {
  const bad = [];
  for (const f of filesUnder(dir)) {
    if (f.endsWith('.node')) bad.push(relative(dir, f));
    else if (/\.(js|mjs|cjs)$/.test(f) && /horosvec\.[a-z0-9-]+\.node/.test(readFileSync(f, 'utf8'))) bad.push(`${relative(dir, f)} names a .node file`);
  }
  if (bad.length) throw new Error(`${what} holds a native addon: ${bad.join(', ')}`);
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css' };

/** A static server of `dir` on 127.0.0.1 (a free port); resolves with `{ url, close() }`. */
export function serveDir(dir) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    let file = join(dir, path);
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) })),
  );
}

/** `dir` served on a free localhost port for one {@link pageResult} run, then closed. */
export async function servedPageResult(ctx, dir, opts) {
  const server = await serveDir(dir);
  try {
    return await pageResult(ctx, server.url, opts);
  } finally {
    await server.close();
  }
}

/**
 * Opens `url` in headless Chromium (Debian's /usr/bin/chromium through playwright-core, the
 * flags of tests-js/browser/e2e.mjs) and waits for `window.__result` or, with `settleOnError`,
 * for the first uncaught page error; resolves with `{ result, errors, console }`. A page that
 * does neither in `timeoutMs` rejects, quoting its errors and console.
 */
export async function pageResult(ctx, url, { timeoutMs = 30_000, settleOnError = false } = {}) {
  const { chromium } = await import('playwright-core');
  const profile = join(ctx.tmp, '.chromium-profile');
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.HOROSVEC_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const errors = [];
  const consoleLines = [];
  try {
    const page = await browser.newPage();
    let onError;
    const failed = new Promise((resolve) => (onError = resolve));
    page.on('pageerror', (e) => {
      errors.push(String(e?.message ?? e));
      onError();
    });
    page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
    await page.goto(url);
    const done = page.waitForFunction(() => window.__result !== undefined, null, { timeout: timeoutMs });
    try {
      await (settleOnError ? Promise.race([done, failed]) : done);
    } catch {
      throw new Error(`${url} set no result; page errors: ${JSON.stringify(errors)}; console: ${JSON.stringify(consoleLines.slice(-10))}`);
    } finally {
      done.catch(() => {});
    }
    return { result: await page.evaluate(() => window.__result), errors, console: consoleLines };
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * The page script every browser case bundles: a search on the wasm backend, its result in
 * `window.__result` (no top-level await of its own, so any output format can hold it).
 */
export const BROWSER_APP = (specifier = 'horosvec') => `import { Collection, backend, kernel } from '${specifier}';
(async () => {
  const c = Collection.create({ dim: 3, metric: 'cosine' });
  await c.add(['cat', 'dog', 'car'], [[1, 0, 0], [0.9, 0.1, 0], [0, 0, 1]]);
  const hits = await c.search([1, 0.05, 0], { k: 2 });
  window.__result = { backend, kernel, ids: hits.map((h) => h.id) };
})().catch((e) => {
  window.__result = { error: String(e && e.message) };
});
`;

/**
 * The server script of the Node bundle cases: prints `{ backend, id, reason }` of a search as
 * JSON (no top-level await of its own, so a CommonJS bundle can hold it). `cjs` writes it with
 * `require`.
 */
export const SERVER_APP = (cjs = false) => `${cjs ? "const { Collection, backend } = require('horosvec');" : "import { Collection, backend } from 'horosvec';"}
(async () => {
  const c = Collection.create({ dim: 2 });
  await c.add(['a', 'b'], [[0, 1], [1, 0]]);
  const h = await c.search([0.9, 0.1], { k: 1 });
  console.log(JSON.stringify({ backend, id: h[0].id, reason: c.stats().backendReason ?? null }));
})();
`;

/** Runs a Node bundle (SERVER_APP) and returns its `{ backend, id, reason }`; env e.g. { HOROSVEC_FORCE_WASM: '1' }. */
export async function runServer(file, { cwd, env = {} } = {}) {
  const { out } = await run(process.execPath, [file], { cwd, env: { HOROSVEC_FORCE_WASM: '', HOROSVEC_DEBUG: '', ...env }, timeoutMs: 60_000 });
  const line = out.trim().split('\n').pop();
  let r;
  try {
    r = JSON.parse(line);
  } catch {
    throw new Error(`${file} printed no result:\n${out}`);
  }
  if (r.id !== 'b') throw new Error(`${file}: wrong search result ${line}`);
  return r;
}

/** Throws unless `r` (from pageResult) is the BROWSER_APP's search on wasm with no page error. */
export function assertWasmPage(r, what) {
  const ok = r.result?.backend === 'wasm' && r.result?.ids?.join() === 'cat,dog' && r.errors.length === 0;
  if (!ok) throw new Error(`${what}: unexpected page result ${JSON.stringify(r.result)}, errors ${JSON.stringify(r.errors)}`);
  return `${r.result.backend}/${r.result.kernel}`;
}

/** A page shell loading `script` (a module unless `classic`). */
export const PAGE = (script, classic = false) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>eco</title></head><body><script ${classic ? '' : 'type="module" '}src="${script}"></script></body></html>\n`;

/** Realpath of `horosvec` as Node resolves it from `dir` (to prove a case used the tarball's copy). */
export function resolvedHorosvec(dir) {
  return realpathSync(join(dir, 'node_modules', 'horosvec'));
}
