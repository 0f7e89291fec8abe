// The package as users meet it: entry points, backend selection and fallback, CommonJS, typings.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { backends } from './helpers/backends.js';
// @ts-expect-error plain JS module without typings
import { hostInfo, hostKey as keyOf } from '../npm/lib/platform.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkgDir = join(root, 'npm');
const hostKey: string = keyOf(hostInfo(process));

function node(code: string, env: Record<string, string> = {}, cwd = root, type: 'esm' | 'cjs' = 'esm'): string {
  const args = type === 'esm' ? ['--input-type=module', '-e', code] : ['-e', code];
  const childEnv = { ...process.env, ...env };
  if (!('HOROSVEC_FORCE_WASM' in env)) delete childEnv.HOROSVEC_FORCE_WASM;
  return execFileSync(process.execPath, args, { cwd, env: childEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

const PROBE_ESM = `import { Collection, backend } from 'horosvec';
const c = Collection.create({ dim: 2 }); await c.add([1], [[1, 2]]);
console.log(backend, (await c.search([1, 2], { k: 1 }))[0].id);`;
const PROBE_CJS = `const { Collection, backend } = require('horosvec');
const c = Collection.create({ dim: 2 });
c.add([1], [[1, 2]]).then(() => c.search([1, 2], { k: 1 })).then((h) => console.log(backend, h[0].id));`;

describe('entry points', () => {
  it('ESM import picks the native addon under Node', () => {
    expect(node(PROBE_ESM)).toBe('native 1');
  });
  it('CommonJS require works too', () => {
    expect(node(PROBE_CJS, {}, root, 'cjs')).toBe('native 1');
  });
  it('HOROSVEC_FORCE_WASM=1 or true forces the wasm build (ESM and CommonJS); 0 and false do not', () => {
    expect(node(PROBE_ESM, { HOROSVEC_FORCE_WASM: '1' })).toBe('wasm 1');
    expect(node(PROBE_CJS, { HOROSVEC_FORCE_WASM: '1' }, root, 'cjs')).toBe('wasm 1');
    expect(node(PROBE_ESM, { HOROSVEC_FORCE_WASM: 'true' })).toBe('wasm 1');
    expect(node(PROBE_CJS, { HOROSVEC_FORCE_WASM: 'TRUE' }, root, 'cjs')).toBe('wasm 1');
    expect(node(PROBE_ESM, { HOROSVEC_FORCE_WASM: '0' })).toBe('native 1');
    expect(node(PROBE_ESM, { HOROSVEC_FORCE_WASM: 'false' })).toBe('native 1');
  });
  it('stats().backendReason: null on native, the reason on wasm', () => {
    const code = `import { Collection } from 'horosvec'; console.log(JSON.stringify(Collection.create({ dim: 2 }).stats().backendReason));`;
    expect(node(code)).toBe('null');
    expect(node(code, { HOROSVEC_FORCE_WASM: 'true' })).toBe('"HOROSVEC_FORCE_WASM=true is set"');
    const wasmEntry = `import { Collection } from 'horosvec/wasm'; console.log(Collection.create({ dim: 2 }).stats().backendReason);`;
    expect(node(wasmEntry)).toBe('the horosvec/wasm entry point always uses the wasm build');
  });
  it('HOROSVEC_DEBUG=1 prints one line naming the addon used', () => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE_ESM], { cwd: root, env: { ...process.env, HOROSVEC_DEBUG: '1', HOROSVEC_FORCE_WASM: '' }, encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('native 1');
    expect(r.stderr.trim().split('\n')).toEqual([`horosvec: using the native addon (${join(pkgDir, 'native', `horosvec.${hostKey}.node`)})`]);
  });

  // A copy of the package as npm installs it (no checkout build), with or without its platform package.
  function installedCopy(withPlatform: boolean): string {
    const dir = mkdtempSync(join(tmpdir(), 'horosvec-fallback-'));
    const copy = join(dir, 'node_modules', 'horosvec');
    mkdirSync(join(dir, 'node_modules', '@horosvec'), { recursive: true });
    cpSync(pkgDir, copy, { recursive: true, filter: (src) => src !== join(pkgDir, 'native') && src !== join(pkgDir, 'platforms') });
    if (withPlatform) {
      const plat = join(dir, 'node_modules', '@horosvec', hostKey);
      mkdirSync(plat);
      cpSync(join(pkgDir, 'platforms', hostKey, 'package.json'), join(plat, 'package.json'));
      cpSync(join(pkgDir, 'native', `horosvec.${hostKey}.node`), join(plat, `horosvec.${hostKey}.node`));
    }
    return dir;
  }
  const debugRun = (code: string, cwd: string) =>
    spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd, env: { ...process.env, HOROSVEC_DEBUG: '1', HOROSVEC_FORCE_WASM: '' }, encoding: 'utf8' });

  it('an installed package loads its platform package @horosvec/<key>', () => {
    const dir = installedCopy(true);
    try {
      const r = debugRun(PROBE_ESM, dir);
      expect(r.stdout.trim()).toBe('native 1');
      expect(r.stderr.trim()).toBe(`horosvec: using the native addon (@horosvec/${hostKey})`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("a platform package that fails to load: wasm, with the load error's own first line", () => {
    const dir = installedCopy(true);
    try {
      writeFileSync(join(dir, 'node_modules', '@horosvec', hostKey, `horosvec.${hostKey}.node`), 'not an addon');
      const code = `import { Collection, backend } from 'horosvec';
        console.log(backend); console.log(Collection.create({ dim: 2 }).stats().backendReason);
        try { await Collection.open('x', { dim: 2 }); } catch (e) { console.log(e.code + ' ' + e.message); }`;
      const [be, reason, open] = node(code, {}, dir).split('\n');
      expect(be).toBe('wasm');
      expect(reason).toContain(`horosvec.${hostKey}.node`); // dlopen's own words, e.g. "…: invalid ELF header"
      expect(reason).not.toContain('\n');
      expect(open).toContain(`because ${reason}. Reinstall @horosvec/${hostKey}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('falls back to wasm without its platform package: one line under HOROSVEC_DEBUG=1, the reason in stats and in Collection.open', () => {
    const dir = installedCopy(false);
    const reason = `@horosvec/${hostKey} is not installed (was it skipped with --omit=optional / --no-optional?)`;
    try {
      expect(node(PROBE_ESM, {}, dir)).toBe('wasm 1');
      const r = debugRun(PROBE_ESM, dir);
      expect(r.stdout.trim()).toBe('wasm 1');
      expect(r.stderr.trim().split('\n')).toEqual([`horosvec: using the wasm build (in memory only): ${reason}`]);
      expect(r.stderr).not.toMatch(/npm\/cli|optional dependenc(y|ies) bug|package-lock/i);
      const open = `import { Collection, openDatabase } from 'horosvec';
        console.log(Collection.create({ dim: 2 }).stats().backendReason);
        for (const f of [() => Collection.open('x', { dim: 2 }), () => openDatabase('x')]) {
          try { await f(); } catch (e) { console.log(e.code + ' ' + e.message); }
        }`;
      const [got, openErr, dbErr] = node(open, {}, dir).split('\n');
      expect(got).toBe(reason);
      expect(openErr).toBe(`HV_UNSUPPORTED HV_UNSUPPORTED: Collection.open needs the native addon, and this process runs the in-memory wasm build because ${reason}. Install horosvec with its optional dependencies (npm install without --omit=optional; pnpm/yarn: this platform in supportedArchitectures), or add @horosvec/${hostKey} explicitly.`);
      expect(dbErr).toMatch(/^HV_UNSUPPORTED HV_UNSUPPORTED: openDatabase\(dir\) needs the native addon, .* is not installed .*openDatabase\(\) makes an in-memory database/);
      expect(openErr).not.toMatch(/browser/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('the package declares no install scripts', () => {
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts?.[s]).toBeUndefined();
    expect(pkg.exports['.'].browser).toBe('./browser.js');
    expect(pkg.exports['.'].node).toBe('./node.js');
  });
});

describe('typings match both backends', () => {
  const dts = readFileSync(join(pkgDir, 'index.d.ts'), 'utf8');
  const exported = [...dts.matchAll(/^export declare (?:const|class|function) (\w+)/gm)].map((m) => m[1]).sort();
  const classBody = dts.slice(dts.indexOf('export declare class Collection'));
  const body = classBody.slice(0, classBody.indexOf('\n}\n'));
  const members = [...body.matchAll(/^ {2}(?:static |readonly )?(\w+)[<(:]/gm)].map((m) => m[1]).filter((m) => m !== 'constructor');
  const statics = [...body.matchAll(/^ {2}static (\w+)/gm)].map((m) => m[1]);

  it.each(backends)('%s exports exactly what index.d.ts declares', (_name, hv) => {
    expect(exported).toEqual(['Collection', 'HorosvecError', 'backend', 'isHorosvecError', 'kernel', 'openDatabase', 'version']);
    const keys = Object.keys(hv).filter((k) => k !== 'default').sort();
    expect(keys).toEqual(exported);
    expect(Object.keys((hv as unknown as { default: object }).default).sort()).toEqual(exported);
    expect(typeof hv.backend).toBe('string');
    expect(typeof hv.kernel).toBe('string');
    expect(typeof hv.version).toBe('string');
  });

  it.each(backends)('%s Collection has every declared member and no undeclared public one', (_name, hv) => {
    const col = hv.Collection.create({ dim: 2 });
    for (const m of members) {
      if (statics.includes(m)) expect(typeof (hv.Collection as unknown as Record<string, unknown>)[m]).toBe('function');
      else expect(m in col, `member ${m}`).toBe(true);
    }
    const runtime = Object.getOwnPropertyNames(hv.Collection.prototype).filter((m) => m !== 'constructor').sort();
    expect(runtime).toEqual(members.filter((m) => !statics.includes(m)).sort());
    const runtimeStatics = Object.getOwnPropertyNames(hv.Collection).filter((m) => !['length', 'name', 'prototype'].includes(m));
    expect(runtimeStatics.sort()).toEqual(statics.sort());
  });
});
