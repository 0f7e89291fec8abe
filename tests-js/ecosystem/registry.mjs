// A local npm registry for the install cases (verdaccio, a root devDependency): started once per
// runner process on a free 127.0.0.1 port with a temporary storage and config, `horosvec` and
// `@horosvec/*` served only from it (published here from the packed tarballs, no uplink),
// everything else proxied to the registry npm itself uses. Stopped when the process exits.
// Platform packages not built on this machine are published as stand-ins (their real
// package.json, a placeholder binary) so that foreign-platform resolution can be checked; the
// cases say which were stand-ins.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function waitUp(url, child, log, ms = 60_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited ${child.exitCode}: ${readFileSync(log, 'utf8').slice(-2000)}`);
    try {
      const r = await fetch(`${url}-/ping`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`verdaccio did not answer on ${url} within ${ms / 1000} s: ${readFileSync(log, 'utf8').slice(-2000)}`);
}

let started;

/**
 * The registry, started and filled on first use: `{ url, npmrc (text for a project's .npmrc),
 * integrity (the main tarball's sha512), standIns (keys published as stand-ins), keys (all
 * published platform keys) }`.
 */
export function registry(ctx) {
  started ??= start(ctx);
  return started;
}

async function start(ctx) {
  const t = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'horosvec-registry-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const upstream = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim() || 'https://registry.npmjs.org/';
  const local = { access: '$all', publish: '$authenticated' };
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      `storage: ${JSON.stringify(join(dir, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(join(dir, 'htpasswd'))}`,
      '    max_users: 1',
      'uplinks:',
      '  upstream:',
      `    url: ${JSON.stringify(upstream)}`,
      'packages:',
      `  'horosvec': { access: ${local.access}, publish: ${local.publish} }`,
      `  '@horosvec/*': { access: ${local.access}, publish: ${local.publish} }`,
      "  '**': { access: $all, proxy: upstream }",
      'web: { enable: false }',
      'log: { type: stdout, format: json, level: warn }',
      '',
    ].join('\n'),
  );
  const log = join(dir, 'verdaccio.log');
  const fd = openSync(log, 'a');
  const bin = join(ctx.root, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  const child = spawn(process.execPath, [bin, '--config', join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`], { stdio: ['ignore', fd, fd] });
  child.unref();
  process.on('exit', () => {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone already
    }
    rmSync(dir, { recursive: true, force: true });
  });
  await waitUp(url, child, log);

  // a publishing user, then every tarball
  const r = await fetch(`${url}-/user/org.couchdb.user:ci`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'ci', password: 'ci-password-local' }),
  });
  const { token } = await r.json();
  if (!token) throw new Error(`verdaccio gave no token (HTTP ${r.status})`);
  // The registry protocol's publish (what `npm publish` sends: the manifest, its dist, the
  // tarball as an attachment), one PUT per package: 7 npm processes took 5-10 s here.
  const publish = async (tgz) => {
    const bytes = readFileSync(tgz);
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tgz, 'package/package.json'], { encoding: 'utf8' }));
    const { name, version } = manifest;
    const file = `${name.replace(/^@[^/]+\//, '')}-${version}.tgz`;
    const body = {
      _id: name,
      name,
      'dist-tags': { latest: version },
      versions: {
        [version]: {
          ...manifest,
          _id: `${name}@${version}`,
          dist: {
            integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
            shasum: createHash('sha1').update(bytes).digest('hex'),
            tarball: `${url}${name}/-/${file}`,
          },
        },
      },
      _attachments: { [file]: { content_type: 'application/octet-stream', data: bytes.toString('base64'), length: bytes.length } },
    };
    const res = await fetch(`${url}${name.replace('/', '%2f')}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`publishing ${name}@${version} to ${url}: HTTP ${res.status} ${await res.text()}`);
  };

  const { PLATFORMS, binaryName } = await import(pathToFileURL(join(ctx.root, 'npm', 'lib', 'platform.js')).href);
  const standIns = [];
  await publish(ctx.tarballs.main);
  for (const key of Object.keys(PLATFORMS)) {
    let tgz = ctx.tarballs.platforms[key];
    if (!tgz) {
      const sdir = join(dir, 'stand-in', key);
      mkdirSync(join(sdir, 'package'), { recursive: true });
      writeFileSync(join(sdir, 'package', 'package.json'), readFileSync(join(ctx.root, 'npm', 'platforms', key, 'package.json')));
      writeFileSync(join(sdir, 'package', binaryName(key)), `stand-in for ${key}: not built on this machine\n`);
      tgz = join(sdir, `${key}.tgz`);
      execFileSync('tar', ['-czf', tgz, '-C', sdir, 'package']);
      standIns.push(key);
    }
    await publish(tgz);
  }
  ctx.log(`registry ${url} up and filled in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const integrity = `sha512-${createHash('sha512').update(readFileSync(ctx.tarballs.main)).digest('base64')}`;
  return { url, npmrc: `registry=${url}\n`, integrity, standIns, keys: Object.keys(PLATFORMS) };
}

/** The probe every install and runtime case runs: create, add, search, durable open + write + reopen (when given a directory). */
export const PROBE = `import { Collection, backend } from 'horosvec';
const dir = (typeof Deno !== 'undefined' ? Deno.args[0] : process.argv[2]) || '';
const out = { backend };
const c = Collection.create({ dim: 2 });
await c.add([1, 2], [[1, 2], [3, 4]]);
out.hit = (await c.search([3, 4], { k: 1 }))[0].id;
out.reason = c.stats().backendReason;
if (dir) {
  try {
    const d = await Collection.open(dir, { dim: 2 });
    await d.add([7], [[5, 6]]);
    await d.close();
    const r = await Collection.open(dir);
    out.reopened = r.size;
    out.durableHit = (await r.search([5, 6], { k: 1 }))[0].id;
    await r.close();
  } catch (e) {
    out.openError = e.code + ' ' + e.message;
  }
}
console.log(JSON.stringify(out));
`;

/** The probe's JSON (its last stdout line starting with "{"), and the lines before it. */
export function probeResult(output) {
  const lines = output.trim().split('\n');
  const i = lines.findLastIndex((l) => l.startsWith('{"backend"'));
  if (i < 0) throw new Error(`the probe printed no result:\n${output.slice(-2000)}`);
  return { ...JSON.parse(lines[i]), other: lines.filter((_, j) => j !== i) };
}

/** Throws unless the probe ran natively, durable collection included. */
export function assertNative(r, what) {
  if (r.backend !== 'native' || r.hit !== 2 || r.reason !== null || r.reopened !== 1 || r.durableHit !== 7) {
    throw new Error(`${what}: expected native with a durable reopen, got ${JSON.stringify(r)}`);
  }
}
