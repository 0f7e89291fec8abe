// The platform packages and the loader's decisions: which prebuilt addon a host gets, or the
// reason it gets wasm (npm/lib/platform.js), and the package layout those decisions rely on.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error plain JS module without typings
import * as platform from '../npm/lib/platform.js';
// @ts-expect-error plain JS module without typings
import { platformManifest, publishManifest } from '../scripts/platforms.mjs';

type Host = { platform: string; arch: string; libc?: string | null; glibcVersion?: string | null };
type Io = { exists(p: string): boolean; require(s: string): unknown; resolve(s: string): string; check?(p: string): string | null };
type Loaded = { binding: unknown; from?: string; kind?: string; reason?: string };
const p = platform as {
  PLATFORMS: Record<string, { target: string; os: string; cpu: string; libc?: string; glibcFloor?: string }>;
  hostKey(h: Host): string;
  prebuiltFor(h: Host): { key: string; pkg: string | null; kind?: string; reason?: string };
  loadNative(h: Host, devPath: string | null, io: Io): Loaded;
  truncatedElf(header: Uint8Array, size: number): string | null;
  hostInfo(proc: unknown, readFile?: (p: string) => string, allowed?: (d: object) => boolean, opts?: { quick?: boolean }): Host;
  isTruthy(v: unknown): boolean;
  readEnv(name: string, proc?: unknown, allowed?: (d: object) => boolean): string | undefined;
  remedy(kind: string, key: string): string;
  firstLine(e: unknown): string;
};

const root = fileURLToPath(new URL('..', import.meta.url));
const npmDir = join(root, 'npm');
const KEYS = ['linux-x64-gnu', 'linux-x64-musl', 'linux-arm64-gnu', 'linux-arm64-musl', 'darwin-x64', 'darwin-arm64', 'win32-x64-gnu'];

describe('prebuiltFor: the package for a host, or why there is none', () => {
  it.each([
    [{ platform: 'linux', arch: 'x64', libc: 'glibc', glibcVersion: '2.36' }, '@horosvec/linux-x64-gnu'],
    [{ platform: 'linux', arch: 'x64', libc: 'glibc', glibcVersion: '2.28' }, '@horosvec/linux-x64-gnu'],
    [{ platform: 'linux', arch: 'x64', libc: 'glibc', glibcVersion: null }, '@horosvec/linux-x64-gnu'],
    [{ platform: 'linux', arch: 'x64', libc: 'musl', glibcVersion: null }, '@horosvec/linux-x64-musl'],
    [{ platform: 'linux', arch: 'arm64', libc: 'glibc', glibcVersion: '2.31' }, '@horosvec/linux-arm64-gnu'],
    [{ platform: 'linux', arch: 'arm64', libc: 'musl' }, '@horosvec/linux-arm64-musl'],
    [{ platform: 'darwin', arch: 'x64' }, '@horosvec/darwin-x64'],
    [{ platform: 'darwin', arch: 'arm64' }, '@horosvec/darwin-arm64'],
    [{ platform: 'win32', arch: 'x64' }, '@horosvec/win32-x64-gnu'],
  ])('%o → %s', (host, pkg) => {
    expect(p.prebuiltFor(host).pkg).toBe(pkg);
  });

  it.each([
    [{ platform: 'freebsd', arch: 'x64' }, 'no-prebuilt', 'no prebuilt native addon for freebsd-x64'],
    [{ platform: 'win32', arch: 'arm64' }, 'no-prebuilt', 'no prebuilt native addon for win32-arm64-gnu'],
    [{ platform: 'linux', arch: 'riscv64', libc: 'glibc' }, 'no-prebuilt', 'no prebuilt native addon for linux-riscv64-gnu'],
    [{ platform: 'linux', arch: 'x64', libc: 'glibc', glibcVersion: '2.17' }, 'old-glibc', 'glibc 2.17 is older than 2.28, the floor of the prebuilt linux-x64-gnu addon'],
    [{ platform: 'linux', arch: 'arm64', libc: 'glibc', glibcVersion: '2.27' }, 'old-glibc', 'glibc 2.27 is older than 2.28, the floor of the prebuilt linux-arm64-gnu addon'],
    [{ platform: 'linux', arch: 'x64', libc: 'glibc', glibcVersion: '2.9' }, 'old-glibc', 'glibc 2.9 is older than 2.28, the floor of the prebuilt linux-x64-gnu addon'],
  ])('%o → none (%s)', (host, kind, reason) => {
    expect(p.prebuiltFor(host)).toMatchObject({ pkg: null, kind, reason });
  });

  it('the musl builds have no glibc floor', () => {
    expect(p.prebuiltFor({ platform: 'linux', arch: 'x64', libc: 'musl', glibcVersion: '1.0' }).pkg).toBe('@horosvec/linux-x64-musl');
  });
});

describe('loadNative: the order of attempts and the reason of a fallback', () => {
  const host = { platform: 'linux', arch: 'x64', libc: 'glibc', glibcVersion: '2.36' };
  const binding = { CoreCollection: {} };
  const notFound = (s: string) => Object.assign(new Error(`Cannot find module '${s}'\nRequire stack:\n- x`), { code: 'MODULE_NOT_FOUND' });
  // a fake module system: `files` are the paths that exist, `mods` what requiring each gives
  const io = (files: string[], mods: Record<string, unknown>): Io => ({
    exists: (f) => files.includes(f),
    resolve: (s) => {
      const pkg = s.replace(/\/package\.json$/, '');
      if (!(pkg in mods)) throw notFound(s);
      return `/nm/${s}`;
    },
    require: (s) => {
      if (!(s in mods)) throw notFound(s);
      const m = mods[s];
      if (m instanceof Error) throw m;
      return m;
    },
  });

  it('the checkout build first', () => {
    expect(p.loadNative(host, '/dev.node', io(['/dev.node'], { '/dev.node': binding, '@horosvec/linux-x64-gnu': {} }))).toEqual({ binding, from: '/dev.node' });
  });
  it('then the platform package', () => {
    expect(p.loadNative(host, '/dev.node', io([], { '@horosvec/linux-x64-gnu': binding }))).toEqual({ binding, from: '@horosvec/linux-x64-gnu' });
  });
  it('a missing package is named, with the usual cause', () => {
    expect(p.loadNative(host, '/dev.node', io([], {}))).toEqual({
      binding: null,
      kind: 'not-installed',
      reason: '@horosvec/linux-x64-gnu is not installed (was it skipped with --omit=optional / --no-optional?)',
    });
  });
  it("a package that fails to load gives the load error's own first line", () => {
    const e = new Error("/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.99' not found (required by horosvec.node)\nmore");
    expect(p.loadNative(host, null, io([], { '@horosvec/linux-x64-gnu': e }))).toEqual({
      binding: null,
      kind: 'load-error',
      reason: "/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.99' not found (required by horosvec.node)",
    });
  });
  it("Deno's refused permission is its own kind", () => {
    const e = Object.assign(new Error('Requires ffi access to "/nm/x.node", run again with the --allow-ffi flag'), { name: 'NotCapable' });
    expect(p.loadNative(host, null, io([], { '@horosvec/linux-x64-gnu': e }))).toMatchObject({ binding: null, kind: 'permission', reason: e.message });
  });
  it('a broken checkout build is reported when no package helps', () => {
    const e = new Error('invalid ELF header');
    expect(p.loadNative(host, '/dev.node', io(['/dev.node'], { '/dev.node': e }))).toEqual({ binding: null, kind: 'load-error', reason: 'invalid ELF header' });
    expect(p.loadNative(host, '/dev.node', io(['/dev.node'], { '/dev.node': e, '@horosvec/linux-x64-gnu': binding }))).toEqual({ binding, from: '@horosvec/linux-x64-gnu' });
  });
  it('a host without prebuilt says so, and still takes a build from source', () => {
    const bsd = { platform: 'freebsd', arch: 'x64' };
    expect(p.loadNative(bsd, '/dev.node', io([], {}))).toEqual({ binding: null, kind: 'no-prebuilt', reason: 'no prebuilt native addon for freebsd-x64' });
    expect(p.loadNative(bsd, '/dev.node', io(['/dev.node'], { '/dev.node': binding }))).toEqual({ binding, from: '/dev.node' });
  });
  it('glibc below the floor: the package is not tried', () => {
    const old = { ...host, glibcVersion: '2.17' };
    expect(p.loadNative(old, null, io([], { '@horosvec/linux-x64-gnu': binding }))).toMatchObject({ binding: null, kind: 'old-glibc' });
  });
  it('a truncated addon file is refused before require (dlopen would die of SIGBUS), the checkout build and the package alike', () => {
    const check = (f: string) => (f.endsWith('.node') ? 'the file is truncated (1000 bytes; its ELF header describes 3760256)' : null);
    const throwing = { '@horosvec/linux-x64-gnu': new Error('must not be required') };
    const pkg = { ...io([], throwing), resolve: () => '/nm/@horosvec/linux-x64-gnu/horosvec.linux-x64-gnu.node', check };
    expect(p.loadNative(host, null, pkg)).toEqual({
      binding: null,
      kind: 'load-error',
      reason: '/nm/@horosvec/linux-x64-gnu/horosvec.linux-x64-gnu.node: the file is truncated (1000 bytes; its ELF header describes 3760256)',
    });
    const dev = { ...io(['/dev.node'], { '/dev.node': new Error('must not be required'), '@horosvec/linux-x64-gnu': binding }), check: (f: string) => (f === '/dev.node' ? 'truncated' : null) };
    expect(p.loadNative(host, '/dev.node', dev)).toEqual({ binding, from: '@horosvec/linux-x64-gnu' });
  });
  it('truncatedElf: a real addon passes whole and fails one byte short; anything not ELF64 is left to dlopen', () => {
    const bin = join(npmDir, 'native', 'horosvec.linux-x64-gnu.node');
    const elf = existsSync(bin) ? readFileSync(bin) : null;
    if (elf) {
      expect(p.truncatedElf(elf.subarray(0, 64), elf.length)).toBeNull();
      expect(p.truncatedElf(elf.subarray(0, 64), elf.length - 1)).toMatch(/^the file is truncated \(\d+ bytes; its ELF header describes \d+\)$/);
      expect(p.truncatedElf(elf.subarray(0, 64), 1000)).toMatch(/truncated \(1000 bytes/);
    }
    expect(p.truncatedElf(new TextEncoder().encode('hello\n'), 6)).toBeNull();
    expect(p.truncatedElf(new Uint8Array(64), 64)).toBeNull();
    const mz = new Uint8Array(64);
    mz.set([0x4d, 0x5a]);
    expect(p.truncatedElf(mz, 10)).toBeNull();
  });
  it('every kind has a remedy that is not npm folklore', () => {
    for (const kind of ['forced', 'no-prebuilt', 'old-glibc', 'not-installed', 'permission', 'load-error']) {
      const r = p.remedy(kind, 'linux-x64-gnu');
      expect(r.length).toBeGreaterThan(20);
      expect(r).not.toMatch(/package-lock|npm\/cli|4828|remove node_modules/i);
    }
  });
});

describe('hostInfo: libc detection', () => {
  const proc = (report: unknown, platform = 'linux') => ({ platform, arch: 'x64', report: { getReport: () => report } });
  it('glibc and its version from the report', () => {
    expect(p.hostInfo(proc({ header: { glibcVersionRuntime: '2.36' }, sharedObjects: [] }))).toEqual({ platform: 'linux', arch: 'x64', libc: 'glibc', glibcVersion: '2.36' });
  });
  it('musl from the shared objects', () => {
    expect(p.hostInfo(proc({ header: {}, sharedObjects: ['/lib/ld-musl-x86_64.so.1'] })).libc).toBe('musl');
  });
  it('musl from ldd when the report says nothing', () => {
    expect(p.hostInfo(proc(null), () => 'musl libc (x86_64)').libc).toBe('musl');
  });
  it('a throwing report or ldd counts as glibc of unknown version', () => {
    const bad = { platform: 'linux', arch: 'x64', report: { getReport: () => { throw new Error('no'); } } };
    expect(p.hostInfo(bad, () => { throw new Error('EACCES'); })).toEqual({ platform: 'linux', arch: 'x64', libc: 'glibc', glibcVersion: null });
  });
  it('quick: ldd first, the report only when ldd cannot be read', () => {
    let asked = 0;
    const counted = { platform: 'linux', arch: 'x64', report: { getReport: () => (asked++, { header: { glibcVersionRuntime: '2.36' } }) } };
    expect(p.hostInfo(counted, () => 'GNU ldd script', undefined, { quick: true })).toEqual({ platform: 'linux', arch: 'x64', libc: 'glibc', glibcVersion: null });
    expect(p.hostInfo(counted, () => 'exec /lib/ld-musl-x86_64.so.1 --list', undefined, { quick: true }).libc).toBe('musl');
    expect(asked).toBe(0);
    expect(p.hostInfo(counted, () => { throw new Error('ENOENT'); }, undefined, { quick: true }).glibcVersion).toBe('2.36');
    expect(asked).toBe(1);
  });
  it('Deno without --allow-sys / --allow-read: neither probe runs (no prompt), glibc assumed', () => {
    const asked: string[] = [];
    const deno = { permissions: { querySync: (d: { name: string }) => (asked.push(d.name), { state: 'prompt' }) } };
    const allowed = (d: object) => platform.granted(d, deno);
    let reported = false;
    const proc = { platform: 'linux', arch: 'x64', report: { getReport: () => ((reported = true), {}) } };
    expect(p.hostInfo(proc, () => 'musl', allowed)).toEqual({ platform: 'linux', arch: 'x64', libc: 'glibc', glibcVersion: null });
    expect(reported).toBe(false);
    expect(asked.sort()).toEqual(['read', 'sys']);
    expect(p.readEnv('HOROSVEC_DEBUG', { env: { HOROSVEC_DEBUG: '1' } }, allowed)).toBeUndefined();
    expect(platform.granted({ name: 'env' }, { permissions: { querySync: () => ({ state: 'granted' }) } })).toBe(true);
    expect(platform.granted({ name: 'env' }, undefined)).toBe(true);
  });
  it('a failed load is explained by a glibc below the floor', () => {
    const failed = { binding: null, kind: 'load-error', reason: "version `GLIBC_2.28' not found" };
    expect(platform.explainFailure(failed, { platform: 'linux', arch: 'x64', libc: 'glibc', glibcVersion: '2.17' })).toEqual({
      binding: null,
      kind: 'old-glibc',
      reason: 'glibc 2.17 is older than 2.28, the floor of the prebuilt linux-x64-gnu addon',
    });
    expect(platform.explainFailure(failed, { platform: 'linux', arch: 'x64', libc: 'glibc', glibcVersion: '2.36' })).toBe(failed);
  });
  it('not Linux: no libc', () => {
    expect(p.hostInfo(proc(null, 'darwin'))).toEqual({ platform: 'darwin', arch: 'x64', libc: null, glibcVersion: null });
  });
  it('this process', () => {
    const h = p.hostInfo(process);
    expect(h.platform).toBe(process.platform);
    if (process.platform === 'linux') expect(h.libc).toMatch(/^(glibc|musl)$/);
  });
});

describe('the environment', () => {
  it.each([['1', true], ['true', true], ['TRUE', true], ['True', true], ['0', false], ['false', false], ['', false], ['yes', false], [undefined, false]])('isTruthy(%o) = %o', (v, want) => {
    expect(p.isTruthy(v)).toBe(want);
  });
  it('readEnv never throws (Deno without --allow-env)', () => {
    const denied = { env: new Proxy({}, { get: () => { throw Object.assign(new Error('Requires env access'), { name: 'NotCapable' }); } }) };
    expect(p.readEnv('HOROSVEC_FORCE_WASM', denied)).toBeUndefined();
    expect(p.readEnv('X', { env: { X: 'true' } })).toBe('true');
    expect(p.readEnv('X', undefined)).toBeUndefined();
  });
});

describe('package layout', () => {
  const main = JSON.parse(readFileSync(join(npmDir, 'package.json'), 'utf8'));
  it('the table has the 7 keys, one dir each, nothing else', () => {
    expect(Object.keys(p.PLATFORMS)).toEqual(KEYS);
    expect(readdirSync(join(npmDir, 'platforms')).sort()).toEqual([...KEYS].sort());
  });
  it.each(KEYS)('%s: committed package.json = the generated one; os/cpu/libc right', (key) => {
    const pkg = JSON.parse(readFileSync(join(npmDir, 'platforms', key, 'package.json'), 'utf8'));
    expect(pkg, 'run node scripts/platforms.mjs --write').toEqual(platformManifest(key, main));
    expect(pkg.name).toBe(`@horosvec/${key}`);
    expect(pkg.version).toBe(main.version);
    expect(pkg.license).toBe(main.license);
    const [os, cpu, libc] = key.split('-');
    expect(pkg.os).toEqual([os]);
    expect(pkg.cpu).toEqual([cpu]);
    if (os === 'linux') expect(pkg.libc).toEqual([libc === 'musl' ? 'musl' : 'glibc']);
    else expect(pkg.libc).toBeUndefined();
    expect(pkg.main).toBe(`horosvec.${key}.node`);
    expect(pkg.files).toEqual([`horosvec.${key}.node`]);
    expect(pkg.scripts).toBeUndefined();
  });
  it('the published main manifest lists every platform package at the exact same version', () => {
    const pub = publishManifest(main);
    expect(pub.optionalDependencies).toEqual(Object.fromEntries(KEYS.map((k) => [`@horosvec/${k}`, main.version])));
    expect(main.napi.targets).toEqual(Object.values(p.PLATFORMS).map((x) => x.target));
  });
  it('the main package ships no .node and no napi loader', () => {
    expect(main.files.some((f: string) => f.includes('native') || f.includes('.node') || f.includes('platforms'))).toBe(false);
    expect(readFileSync(join(npmDir, 'node.js'), 'utf8')).not.toMatch(/index\.cjs|require\(['"][^'"]*\.node['"]\)/);
  });
  it('binaries are ignored by git', () => {
    const ignore = readFileSync(join(root, '.gitignore'), 'utf8');
    expect(ignore).toMatch(/^\/npm\/platforms\/\*\/\*\.node$/m);
    expect(existsSync(join(npmDir, 'platforms', 'darwin-arm64', 'package.json'))).toBe(true);
  });
});
