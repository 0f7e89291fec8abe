// The package as users meet it: entry points, backend selection and fallback, CommonJS, typings.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { backends } from './helpers/backends.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkgDir = join(root, 'npm');

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
  it('HOROSVEC_FORCE_WASM=1 forces the wasm build (ESM and CommonJS)', () => {
    expect(node(PROBE_ESM, { HOROSVEC_FORCE_WASM: '1' })).toBe('wasm 1');
    expect(node(PROBE_CJS, { HOROSVEC_FORCE_WASM: '1' }, root, 'cjs')).toBe('wasm 1');
  });
  it('falls back to wasm when the native addon is missing, with a reason under HOROSVEC_DEBUG=1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'horosvec-fallback-'));
    try {
      const copy = join(dir, 'node_modules', 'horosvec');
      mkdirSync(join(dir, 'node_modules'), { recursive: true });
      cpSync(pkgDir, copy, { recursive: true, filter: (src) => !src.includes(`${join(pkgDir, 'native')}`) });
      expect(node(PROBE_ESM, {}, dir)).toBe('wasm 1');
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE_ESM], {
        cwd: dir, env: { ...process.env, HOROSVEC_DEBUG: '1', HOROSVEC_FORCE_WASM: '' }, encoding: 'utf8',
      });
      expect(r.stdout.trim()).toBe('wasm 1');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^horosvec: native addon unavailable, using wasm: /);
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
