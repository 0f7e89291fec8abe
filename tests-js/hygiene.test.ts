// The package's hygiene as a user meets it: the error class and its code union, the CommonJS
// typings (generated, current, and compiling in CommonJS and ESM TypeScript projects), the
// package metadata and tarball contents, and that importing horosvec loads no dependency.
// The same claims from the packed tarball: tests-js/ecosystem/cases/ts-*.mjs, bench-installed.mjs.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { backends } from './helpers/backends.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NPM = join(ROOT, 'npm');
const pkg = JSON.parse(readFileSync(join(NPM, 'package.json'), 'utf8'));
const dts = readFileSync(join(NPM, 'index.d.ts'), 'utf8');

/** The string literals of a union type alias in index.d.ts. */
function union(name: string): string[] {
  const m = new RegExp(`export type ${name} =([^;]*);`).exec(dts);
  if (!m) throw new Error(`no type ${name}`);
  const own = [...m[1].matchAll(/'([A-Z_]+)'/g)].map((x) => x[1]);
  const refs = [...m[1].matchAll(/\b([A-Z][A-Za-z]+)\b/g)].map((x) => x[1]).filter((r) => !r.startsWith('HV_'));
  return [...own, ...refs.flatMap(union)];
}

function jsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return ['native', 'wasm', 'sample'].includes(f) ? [] : jsFiles(p);
    return p.endsWith('.js') ? [p] : [];
  });
}

describe('HorosvecError', () => {
  const docCodes = [...readFileSync(join(ROOT, 'docs/errors.md'), 'utf8').matchAll(/^\| `(HV_[A-Z_]+)` \|/gm)].map((m) => m[1]);

  it('HorosvecErrorCode is every code of docs/errors.md plus the JS-only ones, and ErrorCode the table', async () => {
    const { JS_ONLY_CODES } = (await import(pathToFileURL(join(NPM, 'lib/errors.js')).href)) as { JS_ONLY_CODES: string[] };
    expect(docCodes.length).toBeGreaterThan(10);
    expect(union('ErrorCode').sort()).toEqual([...docCodes].sort());
    expect(union('HorosvecErrorCode').sort()).toEqual([...docCodes, ...JS_ONLY_CODES].sort());
    expect(JS_ONLY_CODES.filter((c) => docCodes.includes(c))).toEqual([]);
  });

  it('every HV_ code the package\'s JavaScript names is in the union', () => {
    const all = new Set(union('HorosvecErrorCode'));
    for (const f of jsFiles(NPM)) {
      for (const m of readFileSync(f, 'utf8').matchAll(/'(HV_[A-Z_]+)'/g)) expect(all.has(m[1]), `${relative(ROOT, f)}: ${m[1]}`).toBe(true);
    }
  });

  it.each(backends)('%s: thrown and rejected errors are HorosvecErrors; isHorosvecError narrows by code', async (_name, hv) => {
    expect(hv.HorosvecError).toBe(backends[0][1].HorosvecError); // one class for both backends
    const sync = (() => {
      try {
        hv.Collection.create({ dim: 0 });
      } catch (e) {
        return e;
      }
    })();
    expect(sync).toBeInstanceOf(hv.HorosvecError);
    expect(sync).toBeInstanceOf(Error);
    expect(sync).toMatchObject({ name: 'HorosvecError', code: 'HV_INVALID_ARGUMENT' });
    expect(String((sync as Error).message)).toMatch(/^HV_INVALID_ARGUMENT: /);
    expect(hv.isHorosvecError(sync)).toBe(true);
    expect(hv.isHorosvecError(sync, 'HV_INVALID_ARGUMENT')).toBe(true);
    expect(hv.isHorosvecError(sync, 'HV_IO')).toBe(false);
    const col = hv.Collection.create({ dim: 2 });
    await col.add(1, [0, 1]);
    // raised by the core (a duplicate id) and by the JS layer (a bad k), and after close
    const dup = await col.add(1, [0, 1]).catch((e: unknown) => e);
    expect(hv.isHorosvecError(dup, 'HV_DUPLICATE_ID')).toBe(true);
    expect((dup as Error).stack).toContain('HV_DUPLICATE_ID');
    const badK = await col.search([0, 1], { k: 0 }).catch((e: unknown) => e);
    expect(badK).toBeInstanceOf(hv.HorosvecError);
    const getter = await col.add(2, { get length(): number { throw new Error('mine'); } } as unknown as number[]).catch((e: unknown) => e);
    expect(hv.isHorosvecError(getter, 'HV_INVALID_ARGUMENT')).toBe(true);
    expect(((getter as Error).cause as Error).message).toBe('mine');
    await col.close();
    expect(() => col.size).toThrow(hv.HorosvecError);
    const db = await hv.openDatabase();
    await db.createCollection('a', { dim: 2 });
    const exists = await db.createCollection('a', { dim: 2 }).catch((e: unknown) => e);
    expect(hv.isHorosvecError(exists, 'HV_ALREADY_EXISTS')).toBe(true);
    await db.close();
    for (const v of [new Error('HV_IO: not ours'), { code: 'HV_IO', message: 'x' }, null, undefined, 'HV_IO']) expect(hv.isHorosvecError(v)).toBe(false);
  });

  it('the LangChain and LlamaIndex adapters\' file errors are HorosvecErrors (HV_IO) too', async () => {
    const { HorosvecStore } = await import('horosvec/langchain');
    // (by a non-literal name: @llamaindex/core's typings do not check under tsconfig.json, see tsconfig.llamaindex.json)
    const llamaindex = 'horosvec/llamaindex';
    const { HorosvecVectorStore } = (await import(llamaindex)) as { HorosvecVectorStore: new (o: object) => { persist(p: string): Promise<void> } };
    const hv = backends[0][1];
    const dir = mkdtempSync(join(tmpdir(), 'hv-adapter-io-'));
    try {
      const file = join(dir, 'a-file');
      writeFileSync(file, 'x');
      const emb = { embedDocuments: async (t: string[]) => t.map(() => [1, 0]), embedQuery: async () => [1, 0] };
      const store = await HorosvecStore.fromTexts(['a'], [{}], emb, {});
      const e1 = await store.save(join(file, 'sub')).catch((e: unknown) => e);
      expect(hv.isHorosvecError(e1, 'HV_IO'), String(e1)).toBe(true);
      expect(((e1 as Error).cause as { code: string }).code).toBe('ENOTDIR');
      const e2 = await new HorosvecVectorStore({ dim: 2 }).persist(join(file, 'sub', 'x.json')).catch((e: unknown) => e);
      expect(hv.isHorosvecError(e2, 'HV_IO'), String(e2)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the mark holds across copies of the module (a bundle holding the package twice)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hv-errcopy-'));
    try {
      writeFileSync(join(dir, 'errors.js'), readFileSync(join(NPM, 'lib/errors.js')));
      writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
      const copy = (await import(pathToFileURL(join(dir, 'errors.js')).href)) as { hvError(code: string, m: string): Error };
      const e = copy.hvError('HV_IO', 'from the other copy');
      const hv = backends[0][1];
      expect(e).toBeInstanceOf(hv.HorosvecError);
      expect(hv.isHorosvecError(e, 'HV_IO')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bundled by esbuild, the class keeps its name (stack traces and util.inspect say HorosvecError) and instanceof still works', async () => {
    const { build } = await import('esbuild');
    const r = await build({ entryPoints: [join(NPM, 'lib/errors.js')], bundle: true, write: false, format: 'esm', platform: 'node', logLevel: 'silent' });
    const dir = mkdtempSync(join(tmpdir(), 'hv-errbundle-'));
    try {
      writeFileSync(join(dir, 'errors.mjs'), r.outputFiles[0].text);
      const b = (await import(pathToFileURL(join(dir, 'errors.mjs')).href)) as { HorosvecError: { name: string }; hvError(code: string, m: string): Error };
      const e = b.hvError('HV_IO', 'bundled');
      expect(b.HorosvecError.name).toBe('HorosvecError');
      expect(e.constructor.name).toBe('HorosvecError');
      expect(e.stack!.split('\n')[0]).toBe('HorosvecError: HV_IO: bundled');
      expect(e).toBeInstanceOf(b.HorosvecError);
      expect(e).toBeInstanceOf(backends[0][1].HorosvecError);
      expect(new Error('x')).not.toBeInstanceOf(b.HorosvecError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('CommonJS typings', () => {
  it('the .d.cts copies are current (scripts/gen-dcts.mjs --check)', () => {
    const r = spawnSync(process.execPath, ['scripts/gen-dcts.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });

  it('every code export has types for import and require, and each file is in the package', () => {
    for (const [sub, entry] of Object.entries(pkg.exports as Record<string, unknown>)) {
      // package.json and the .wasm asset (found by server bundles through the exports map) are files, not modules
      if (sub === './package.json' || sub.endsWith('.wasm')) continue;
      const types = (entry as { types: { import: string; require: string } }).types;
      expect(Object.keys(entry as object)[0], sub).toBe('types'); // first, as TypeScript needs
      expect(types.import, sub).toMatch(/\.d\.ts$/);
      expect(types.require, sub).toBe(types.import.replace(/\.d\.ts$/, '.d.cts'));
      for (const f of [types.import, types.require]) {
        statSync(join(NPM, f));
        expect(pkg.files.some((p: string) => f.slice(2) === p || f.slice(2).startsWith(p)), f).toBe(true);
      }
    }
  });

  // Fresh TypeScript projects (strict) against the workspace's package: CommonJS with node16, ESM
  // with bundler (nodenext too from the tarball: tests-js/ecosystem/cases/ts-*.mjs). 2–8 s each.
  const projects: [string, 'commonjs' | 'module', string, string][] = [
    ['CommonJS, module node16', 'commonjs', 'node16', 'node16'],
    ['ESM, moduleResolution bundler', 'module', 'esnext', 'bundler'],
  ];
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it.each(projects)('%s compiles and narrows the types', (_label, type, module, resolution) => {
    const dir = mkdtempSync(join(tmpdir(), 'hv-ts-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
    symlinkSync(NPM, join(dir, 'node_modules', 'horosvec'));
    symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', private: true, type }));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module, moduleResolution: resolution, skipLibCheck: false, types: ['node'], lib: ['es2022', 'dom'] }, files: ['main.ts'] }));
    const esm = type === 'module';
    writeFileSync(
      join(dir, 'main.ts'),
      [
        esm ? "import { Collection, isHorosvecError, HorosvecError, type SearchHit } from 'horosvec';" : "import { Collection, isHorosvecError, HorosvecError, type SearchHit } from 'horosvec';\nconst lib: typeof import('horosvec') = require('horosvec');\nvoid lib.Collection;",
        "import type { HorosvecStore } from 'horosvec/langchain';",
        "import { Collection as WorkerCollection, terminate, type WorkerDatabase } from 'horosvec/worker';",
        'export async function w(): Promise<number> {',
        '  const c = await WorkerCollection.create<{ t: string }, number>({ dim: 2 });',
        '  const hits = await c.search(new Float32Array([0, 1]), { k: 1 });',
        '  const n: number = (await c.size()) + hits[0].id;',
        '  await terminate();',
        '  return n;',
        '}',
        'export type D = WorkerDatabase;',
        'export async function f(): Promise<number> {',
        '  const c = Collection.create<{ t: string }, number>({ dim: 2 });',
        '  await c.add([1], [[0, 1]], [{ t: "a" }]);',
        '  const hits: SearchHit<{ t: string }, number>[] = await c.search([0, 1], { k: 1 });',
        '  const id: number = hits[0].id;',
        '  try { await c.add(1, [0, 1]); } catch (e) { if (isHorosvecError(e, "HV_DUPLICATE_ID")) return e.code.length; if (e instanceof HorosvecError) return 0; }',
        '  return id;',
        '}',
        'export type S = HorosvecStore;',
        '',
      ].join('\n'),
    );
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});

describe('package metadata and contents', () => {
  it('repository, homepage, bugs, license; no runtime dependency; no install script', () => {
    expect(pkg.repository).toEqual({ type: 'git', url: 'git+https://github.com/horosvec/horosvec.git', directory: 'npm' });
    expect(pkg.homepage).toMatch(/^https:\/\/github\.com\/horosvec\/horosvec/);
    expect(pkg.bugs.url).toBe('https://github.com/horosvec/horosvec/issues');
    expect(pkg.license).toBe('MIT');
    expect(pkg.dependencies).toBeUndefined();
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts?.[s]).toBeUndefined();
    expect(pkg.scripts.prepack).toBe('node ../scripts/prepack.mjs');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the horosvec developers\n/);
  });

  it('the tarball holds README, LICENSE, the .d.cts typings and the sample with its ground truth (npm pack --dry-run, which runs prepack)', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: NPM, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const files = (JSON.parse(out)[0].files as { path: string; size: number }[]).map((f) => [f.path, f.size] as const);
    const m = new Map(files);
    for (const f of ['README.md', 'LICENSE', 'index.d.ts', 'index.d.cts', 'adapters/langchain.d.cts', 'cli/bench.js', 'sample/README.md']) expect(m.has(f), f).toBe(true);
    expect(m.get('sample/base.f16vecs')).toBe(2000 * (4 + 384 * 2));
    expect(m.get('sample/queries.fvecs')).toBe(100 * (4 + 384 * 4));
    expect(m.get('sample/groundtruth.ivecs')).toBe(100 * (4 + 100 * 4));
    expect(m.get('README.md')).toBe(statSync(join(ROOT, 'README.md')).size);
    // the sample's ground truth is the exact one: its first rows agree with data/sample's (the
    // same queries; data/sample's is over 20,000 rows, so compare through the prefix's own scan)
    const gt = readFileSync(join(NPM, 'sample/groundtruth.ivecs'));
    expect(gt.readInt32LE(0)).toBe(100);
    for (let i = 0; i < 100 * 100; i++) expect(gt.readInt32LE(4 + 4 * (i % 100) + 404 * Math.floor(i / 100)) < 2000).toBe(true);
  }, 60_000);

  it('importing horosvec (ESM or CommonJS, native or wasm) loads no module outside the package', () => {
    const hook = join(mkdtempSync(join(tmpdir(), 'hv-loads-')), 'hook.mjs');
    const log = `${hook}.log`;
    // ESM resolutions through a loader hook; CommonJS ones from require.cache
    writeFileSync(hook, [
      "import { appendFileSync } from 'node:fs';",
      'export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.HV_LOG, r.url + "\\n"); return r; }',
    ].join('\n'));
    writeFileSync(`${hook}.reg.mjs`, `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hook).href)});`);
    const probes: [string, string[], string][] = [
      ['esm', ['--input-type=module', '-e'], "import { Collection } from 'horosvec'; import { createRequire } from 'node:module'; Collection.create({ dim: 2 }); const r = createRequire(import.meta.url); console.log(JSON.stringify(Object.keys(r.cache)));"],
      ['cjs', ['-e'], "require('horosvec').Collection.create({ dim: 2 }); console.log(JSON.stringify(Object.keys(require.cache)));"],
    ];
    const pkgReal = realpathSync(NPM);
    const inside = (p: string) => p.startsWith(`${pkgReal}/`) || p.includes('/node_modules/@horosvec/');
    try {
      for (const wasm of [false, true]) {
        for (const [kind, args, code] of probes) {
          rmSync(log, { force: true });
          const env: NodeJS.ProcessEnv = { ...process.env, HV_LOG: log };
          delete env.HOROSVEC_FORCE_WASM;
          if (wasm) env.HOROSVEC_FORCE_WASM = '1';
          const out = execFileSync(process.execPath, ['--import', pathToFileURL(`${hook}.reg.mjs`).href, ...args, code], { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
          const cjs = JSON.parse(out.trim().split('\n').at(-1)!) as string[];
          // (require(esm) in Node 20 runs no loader hook: the CommonJS probe sees require.cache,
          // the ESM probe the whole ESM graph of the same entry)
          const esm = (existsSync(log) ? readFileSync(log, 'utf8') : '').split('\n').filter(Boolean).filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
          const loaded = [...cjs.filter((p) => p.startsWith('/')), ...esm].filter((p) => p !== `${hook}.reg.mjs` && p !== hook);
          expect(loaded.length, `${kind} ${wasm}`).toBeGreaterThan(0);
          if (kind === 'esm') expect(esm.some((p) => p.endsWith('/lib/errors.js')), 'the hook saw the graph').toBe(true);
          expect(loaded.filter((p) => !inside(p)), `${kind} wasm=${wasm}`).toEqual([]);
        }
      }
    } finally {
      rmSync(join(hook, '..'), { recursive: true, force: true });
    }
  });
});
