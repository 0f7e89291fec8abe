// npm from a local registry (tests-js/ecosystem/registry.mjs), scripts blocked: `npm install
// horosvec` gets this host's platform package only and the probe (create, add, search, durable
// open + reopen) runs natively; `--omit=optional` runs on wasm and HOROSVEC_DEBUG=1 names the
// missing package; `--os/--cpu/--libc` for darwin-arm64, linux-x64-musl, linux-arm64-musl and
// win32-x64 install that platform's package and no other (the lockfile lists all seven). Cost:
// registry start (~4 s, shared with the other install cases) and six installs (~2-4 s each).
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { hostKey, run } from '../project.mjs';
import { PROBE, assertNative, probeResult, registry } from '../registry.mjs';

const installed = (dir) => (existsSync(join(dir, 'node_modules', '@horosvec')) ? readdirSync(join(dir, 'node_modules', '@horosvec')).sort() : []);

export default async function installNpm(ctx) {
  const reg = await registry(ctx);
  const cache = join(ctx.tmp, 'npm-cache');
  const project = async (name, flags) => {
    const dir = join(ctx.tmp, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `inst-${name}`, version: '0.0.0', private: true, type: 'module' }));
    writeFileSync(join(dir, '.npmrc'), reg.npmrc);
    writeFileSync(join(dir, 'probe.mjs'), PROBE);
    await run('npm', ['install', 'horosvec', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', '--cache', cache, ...flags], { cwd: dir, timeoutMs: 180_000 });
    // the tarball packed here (npm may omit `resolved` for the configured registry: compare integrity)
    const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
    const integrity = lock.packages['node_modules/horosvec']?.integrity;
    if (integrity !== reg.integrity) throw new Error(`${name}: horosvec locked at ${integrity}, not the packed tarball's ${reg.integrity}`);
    return dir;
  };
  const key = hostKey();

  // the host: its package only, native
  const host = await project('host', []);
  if (installed(host).join() !== key) throw new Error(`host install has @horosvec/{${installed(host)}}, expected ${key} only`);
  const native = probeResult((await run(process.execPath, ['probe.mjs', join(host, 'db')], { cwd: host })).out);
  assertNative(native, 'npm install');

  // --omit=optional: wasm, with the reason
  const omit = await project('omit', ['--omit=optional']);
  if (installed(omit).length) throw new Error(`--omit=optional still installed @horosvec/{${installed(omit)}}`);
  const w = probeResult((await run(process.execPath, ['probe.mjs', join(omit, 'db')], { cwd: omit, env: { HOROSVEC_DEBUG: '1' } })).out);
  const reason = `@horosvec/${key} is not installed (was it skipped with --omit=optional / --no-optional?)`;
  if (w.backend !== 'wasm' || w.hit !== 2 || w.reason !== reason) throw new Error(`--omit=optional: ${JSON.stringify(w)}`);
  if (w.other.join('\n') !== `horosvec: using the wasm build (in memory only): ${reason}`) throw new Error(`--omit=optional: debug output ${JSON.stringify(w.other)}`);
  if (!w.openError?.startsWith('HV_UNSUPPORTED HV_UNSUPPORTED: Collection.open needs the native addon') || !w.openError.includes(reason)) {
    throw new Error(`--omit=optional: Collection.open gave ${w.openError}`);
  }

  // foreign platforms: npm's --os / --cpu / --libc
  const foreign = [
    ['darwin-arm64', ['--os=darwin', '--cpu=arm64']],
    ['linux-x64-musl', ['--os=linux', '--cpu=x64', '--libc=musl']],
    ['linux-arm64-musl', ['--os=linux', '--cpu=arm64', '--libc=musl']],
    ['win32-x64-gnu', ['--os=win32', '--cpu=x64']],
  ];
  for (const [want, flags] of foreign) {
    const dir = await project(want, flags);
    if (installed(dir).join() !== want) throw new Error(`npm install ${flags.join(' ')} has @horosvec/{${installed(dir)}}, expected ${want} only`);
    const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
    const locked = Object.keys(lock.packages).filter((p) => p.startsWith('node_modules/@horosvec/'));
    if (locked.length !== reg.keys.length) throw new Error(`${want}: the lockfile lists ${locked.length} platform packages, expected all ${reg.keys.length}`);
  }
  const stand = reg.standIns.length ? `; stand-ins for ${reg.standIns.join(', ')}` : '';
  return `${native.backend} (durable reopen ${native.reopened}); --omit=optional → wasm with the reason; --os/--cpu/--libc → ${foreign.map((f) => f[0]).join(', ')} only${stand}`;
}
