// The repository's single-engine benchmark (bench/ef-sweep.mjs), the command-line tool
// (npm/cli/horosvec.js: its own `horosvec bench` is tests-js/cli-bench.test.ts), its vector-file
// readers (npm/cli/vecs.js) and the demo (examples/demo.mjs), run as a user runs them: as child
// processes on the shipped sample.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = 'npm/cli/horosvec.js';
const SWEEP = 'bench/ef-sweep.mjs';
const SAMPLE_ARGS = ['--dataset', 'sample', '--nq', '50', '--seconds', '0.2', '--warmup', '5', '--json'];

type VecsModule = {
  readVecs(path: string): { n: number; dim: number; data: Float32Array | Int32Array | Uint8Array };
};

function env(wasm: boolean): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env };
  delete e.HOROSVEC_FORCE_WASM;
  if (wasm) e.HOROSVEC_FORCE_WASM = '1';
  return e;
}

/** Runs the CLI whatever the outcome. */
function cliRaw(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, env: env(false), encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs bench/ef-sweep.mjs expecting success; returns stdout. */
function sweep(args: string[], wasm = false): string {
  return execFileSync(process.execPath, [SWEEP, ...args], { cwd: ROOT, env: env(wasm), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs bench/ef-sweep.mjs whatever the outcome. */
function sweepRaw(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [SWEEP, ...args], { cwd: ROOT, env: env(false), encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const FIELDS = [
  'engine', 'engine_version', 'backend', 'mode', 'kernel', 'threads', 'dataset', 'n', 'dim', 'metric', 'k', 'batch',
  'build_s', 'recall_mean', 'recall_min', 'recall_tie_tolerant', 'qps', 'p50_ms', 'p99_ms', 'latency_unit',
  'scan_gbps', 'rss_mb', 'bytes_per_vector', 'git_rev', 'date', 'cpu', 'cores', 'node',
] as const;

function records(stdout: string): Record<string, unknown>[] {
  const lines = stdout.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(2);
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

function checkRecords(recs: Record<string, unknown>[], backend: string, n: number, nq: number) {
  const [single, batch] = recs;
  for (const r of recs) {
    for (const f of FIELDS) expect(r, `field ${f}`).toHaveProperty(f);
    expect(r.engine).toBe('horosvec');
    expect(typeof r.engine_version).toBe('string');
    expect(r.backend).toBe(backend);
    expect(typeof r.kernel).toBe('string');
    expect(r.threads as number).toBeGreaterThanOrEqual(1);
    expect(r.dataset).toBe('sample/base.f16vecs');
    expect(r).toMatchObject({ n, nq, dim: 384, metric: 'cosine', k: 10 });
    expect(r.recall_mean).toBe(1);
    expect(r.recall_min).toBe(1);
    expect(r.recall_tie_tolerant).toBe(1);
    for (const f of ['build_s', 'qps', 'p50_ms', 'p99_ms', 'scan_gbps', 'rss_mb'] as const) {
      expect(typeof r[f], f).toBe('number');
      expect(r[f] as number, f).toBeGreaterThan(0);
    }
    expect(r.p99_ms as number).toBeGreaterThanOrEqual(r.p50_ms as number);
    expect(r.scan_gbps as number).toBeCloseTo(((n * 384 * 4) * (r.qps as number)) / 1e9, 2);
    expect(r.bytes_per_vector).toBe(384 * 4);
    expect(r.git_rev === null || typeof r.git_rev === 'string').toBe(true);
    expect(Number.isNaN(Date.parse(r.date as string))).toBe(false);
    expect(typeof r.cpu === 'string' || r.cpu === null).toBe(true);
    expect(r.cores as number).toBeGreaterThanOrEqual(1);
    expect(r.node).toBe(process.version);
  }
  expect(single).toMatchObject({ mode: 'exact', batch: 1, latency_unit: 'query' });
  expect(batch).toMatchObject({ mode: 'exact-batch', batch: 64, latency_unit: 'call' });
}

describe('bench/ef-sweep.mjs', () => {
  it('native: two JSONL records, exact recall 1 against the shipped ground truth', () => {
    const recs = records(sweep(SAMPLE_ARGS));
    checkRecords(recs, 'native', 20000, 50);
    expect(recs[0].ground_truth).toBe('file');
  });

  it('wasm (HOROSVEC_FORCE_WASM=1): the same records from the wasm backend', () => {
    const recs = records(sweep(SAMPLE_ARGS, true));
    checkRecords(recs, 'wasm', 20000, 50);
    expect(recs[0].threads).toBe(1);
  });

  it('--n 2000: ground truth recomputed for the prefix, recall still 1', () => {
    const recs = records(sweep([...SAMPLE_ARGS, '--n', '2000']));
    checkRecords(recs, 'native', 2000, 50);
    expect(recs[0].ground_truth).toBe('brute-force-f64');
    const human = sweep(['--dataset', 'sample', '--n', '2000', '--nq', '20', '--seconds', '0.05', '--warmup', '1']);
    expect(human).toMatch(/ground truth\s+recomputed/);
    expect(human).toMatch(/recall@10\s+mean 1\.0000\s+min 1\.0000/);
    expect(human).toContain('backend native');
  });

  it('--help', () => {
    expect(sweep(['--help'])).toContain('--seconds');
  });

  it('bad arguments exit with code 2 and a usage line', () => {
    const bad = [
      [],
      ['--dataset', 'sample', '--metric', 'hamming'],
      ['--dataset', 'sample', '--k', '0'],
      ['--dataset', 'sample', '--k', '2.5'],
      ['--dataset', 'sample', '--frobnicate'],
      ['--dataset', 'no-such-set'],
    ];
    for (const args of bad) {
      const r = sweepRaw(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^horosvec: .+\nusage: node bench\/ef-sweep\.mjs/);
      expect(r.stdout).toBe('');
    }
  });

  it('a missing file exits with code 1 and HV_IO', () => {
    const r = sweepRaw(['--base', 'no/such/base.fvecs', '--queries', 'data/sample/queries.fvecs', '--metric', 'cosine']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^horosvec: HV_IO: .*no\/such\/base\.fvecs/);
  });
});

// The index and competitor modes on a small prefix of the shipped sample (brute-force ground
// truth for 3,000 rows): floors on recall, never on speed.
const INDEX_ARGS = ['--dataset', 'sample', '--n', '3000', '--nq', '30', '--ef', '16,64', '--seconds', '0.1', '--warmup', '2', '--json'];
const POINT_FIELDS = [
  'engine', 'engine_version', 'backend', 'mode', 'kernel', 'threads', 'params', 'dataset', 'n', 'dim', 'metric', 'k',
  'build_s', 'add_s', 'index_s', 'recall_mean', 'recall_min', 'qps', 'p50_ms', 'p99_ms', 'bytes_per_vector', 'rss_mb',
  'storage', 'git_rev', 'date', 'cpu', 'cores', 'node',
] as const;

function lines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function checkPoints(recs: Record<string, unknown>[]) {
  expect(recs).toHaveLength(2);
  expect(recs.map((r) => (r.params as { ef: number }).ef)).toEqual([16, 64]);
  for (const r of recs) {
    for (const f of POINT_FIELDS) expect(r, `field ${f}`).toHaveProperty(f);
    expect(r).toMatchObject({ dataset: 'sample/base.f16vecs', n: 3000, nq: 30, dim: 384, metric: 'cosine', k: 10, storage: 'memory', batch: 1 });
    for (const f of ['build_s', 'qps', 'p50_ms', 'p99_ms', 'rss_mb', 'bytes_per_vector'] as const) {
      expect(typeof r[f], f).toBe('number');
      expect(r[f] as number, f).toBeGreaterThan(0);
    }
    expect(r.p99_ms as number).toBeGreaterThanOrEqual(r.p50_ms as number);
    expect(r.recall_min as number).toBeLessThanOrEqual(r.recall_mean as number);
    expect(r.node).toBe(process.version);
    expect(Number.isNaN(Date.parse(r.date as string))).toBe(false);
  }
  expect(recs[1].recall_mean as number).toBeGreaterThanOrEqual(0.85);
}

describe('bench/ef-sweep.mjs: index and hnswlib', () => {
  let dir: string;
  let ours: Record<string, unknown>[];
  let theirs: Record<string, unknown>[];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'horosvec-bench-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--index vamana: one record per ef, mode vamana-rabitq1 (the 384-d default), recall@10 ≥ 0.85 at ef 64', () => {
    const out = sweep([...INDEX_ARGS, '--index', 'vamana']);
    ours = lines(out);
    checkPoints(ours);
    for (const r of ours) {
      expect(r).toMatchObject({ engine: 'horosvec', backend: 'native', mode: 'vamana-rabitq1' });
      expect(r.params).toMatchObject({ R: 32, L: 64, alpha: 1.1, bits: 1, seed: 42 });
      expect(r.index_s as number).toBeGreaterThan(0);
      expect(r.build_s as number).toBeCloseTo((r.add_s as number) + (r.index_s as number), 3);
      expect(r.bytes_per_vector as number).toBeLessThan(384 * 4); // walk bytes, not the float vectors
    }
    writeFileSync(join(dir, 'ours.jsonl'), out);
  });

  it('--engine hnswlib: the same protocol on hnswlib-node, recall@10 ≥ 0.85 at ef 64', () => {
    const out = sweep([...INDEX_ARGS, '--engine', 'hnswlib', '--M', '8', '--efConstruction', '64']);
    theirs = lines(out);
    checkPoints(theirs);
    for (const r of theirs) {
      expect(r).toMatchObject({ engine: 'hnswlib', engine_version: '3.0.0', backend: 'native', mode: 'hnsw', kernel: 'hnswlib-simd', threads: 1 });
      expect(r.params).toMatchObject({ M: 8, efConstruction: 64, seed: 42 });
      expect(r.bytes_per_vector as number).toBeGreaterThan(384 * 4); // the estimate holds the vectors
    }
    writeFileSync(join(dir, 'theirs.jsonl'), out);
  });

  it('human mode prints the recall–QPS table', () => {
    const out = sweep(['--dataset', 'sample', '--n', '3000', '--nq', '10', '--ef', '16,64', '--seconds', '0.02', '--warmup', '1', '--index', 'vamana', '--R', '16', '--L', '32']);
    expect(out).toMatch(/params\s+R 16 {2}L 32/);
    expect(out).toMatch(/build\s+[\d.]+ s \(add [\d.]+ s \+ buildIndex [\d.]+ s\)/);
    expect(out).toMatch(/\n\s+ef\s+recall@10\s+min\s+tie-tol\s+QPS\s+QPS\/cpu-s\s+p50 ms\s+p99 ms\n\s+16\s+\d\.\d{4}.*\n\s+64\s+\d\.\d{4}/);
  });

  it('scripts/compare.mjs reads both files and prints QPS at target recalls and the ratios', () => {
    expect(ours).toBeDefined();
    expect(theirs).toBeDefined();
    const out = execFileSync(process.execPath, ['scripts/compare.mjs', join(dir, 'ours.jsonl'), join(dir, 'theirs.jsonl'), '--targets', '0.5,0.85,0.999999'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(out).toContain('sample/base.f16vecs: n 3000, dim 384, metric cosine');
    expect(out).toMatch(/horosvec 0\.1\.0\s+vamana-rabitq1\s+native/);
    expect(out).toMatch(/hnswlib 3\.0\.0\s+hnsw\s+native\s+M=8 efConstruction=64 seed=42/);
    // 0.5 is reached at ef 16 by both (a bound), 0.85 by both at ef 64 at the latest
    expect(out).toMatch(/≥ \d+/);
    const ratioLine = out.split('\n').find((l) => l.startsWith('vamana-rabitq1 native'));
    expect(ratioLine, out).toBeDefined();
    expect(ratioLine).toMatch(/\d+\.\d\d×/);
  });

  it('compare.mjs interpolates in log QPS between the bracketing ef points', () => {
    const p = join(dir, 'synthetic.jsonl');
    const rec = (engine: string, ef: number, recall: number, qps: number) =>
      JSON.stringify({
        engine, engine_version: 'x', backend: 'native', mode: engine === 'hnswlib' ? 'hnsw' : 'vamana-rabitq4', params: { ef }, dataset: 'd/b',
        n: 10, dim: 2, metric: 'l2', k: 10, recall_mean: recall, qps, build_s: 2, build_cpu_s: engine === 'hnswlib' ? 2 : 3, bytes_per_vector: 100,
      });
    writeFileSync(p, [rec('horosvec', 10, 0.8, 4000), rec('horosvec', 20, 1, 1000), rec('hnswlib', 10, 0.8, 1000), rec('hnswlib', 20, 1, 250)].join('\n'));
    const out = execFileSync(process.execPath, ['scripts/compare.mjs', p, '--targets', '0.9,0.95'], { cwd: ROOT, encoding: 'utf8' });
    // halfway between 4000 and 1000 in log space is 2000; 0.95 → 4000 × 4^(−0.75) ≈ 1414
    expect(out).toMatch(/vamana-rabitq4\s+native\s+-\s+2000\s+1414/);
    expect(out).toMatch(/hnsw\s+native\s+-\s+500\s+354/);
    expect(out).toMatch(/vamana-rabitq4 native\s+hnsw\s+4\.00×\s+4\.00×\s+1\.00×\s+1\.50×\s+1\.00×\s+n\/a/);
    // a second run of the same points: best QPS per ef, so nothing changes but the run count
    writeFileSync(p, [readFileSync(p, 'utf8'), rec('horosvec', 10, 0.8, 100), rec('horosvec', 20, 1, 100)].join('\n'));
    const again = execFileSync(process.execPath, ['scripts/compare.mjs', p, '--targets', '0.9,0.95'], { cwd: ROOT, encoding: 'utf8' });
    expect(again).toMatch(/vamana-rabitq4\s+native\s+-\s+2000\s+1414\s+1\.0000\s+2\.0\s+3\.0\s+100\s+n\/a\s+2\s+2\s/);
  });

  it('bad index and engine arguments exit with code 2', () => {
    const bad = [
      ['--dataset', 'sample', '--index', 'ivf'],
      ['--dataset', 'sample', '--engine', 'faiss'],
      ['--dataset', 'sample', '--index', 'vamana', '--ef', '10,x'],
      ['--dataset', 'sample', '--index', 'vamana', '--M', '16'],
      ['--dataset', 'sample', '--R', '16'],
      ['--dataset', 'sample', '--engine', 'hnswlib', '--index', 'vamana'],
      ['--dataset', 'sample', '--engine', 'hnswlib', '--metric', 'l1'],
      ['--dataset', 'sample', '--index', 'vamana', '--alpha', '0.5'],
    ];
    for (const args of bad) {
      const r = sweepRaw(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^horosvec: .+\nusage: node bench\/ef-sweep\.mjs/);
    }
    expect(sweepRaw(['--dataset', 'sample', '--engine', 'hnswlib', '--metric', 'l1']).stderr).toContain('does not support --metric l1');
  });
});

describe('readVecs', () => {
  let dir: string;
  let vecs: VecsModule;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'horosvec-cli-'));
    vecs = (await import(pathToFileURL(resolve(ROOT, 'npm/cli/vecs.js')).href)) as VecsModule;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function fvecs(rows: number[][], dims?: number[]): Buffer {
    const parts = rows.map((r, i) => {
      const b = Buffer.alloc(4 + 4 * r.length);
      b.writeInt32LE(dims ? dims[i] : r.length, 0);
      r.forEach((v, j) => b.writeFloatLE(v, 4 + 4 * j));
      return b;
    });
    return Buffer.concat(parts);
  }

  it('reads the shipped sample', () => {
    const b = vecs.readVecs(resolve(ROOT, 'data/sample/base.f16vecs'));
    expect(b.n).toBe(20000);
    expect(b.dim).toBe(384);
    expect(b.data).toBeInstanceOf(Float32Array);
    const g = vecs.readVecs(resolve(ROOT, 'data/sample/groundtruth.ivecs'));
    expect([g.n, g.dim]).toEqual([500, 100]);
    expect(g.data).toBeInstanceOf(Int32Array);
  });

  it('decodes half precision exactly, subnormals included', () => {
    const halves = [0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xc000, 0x7bff, 0x3555, 0xfc00];
    const want = [0, -0, 2 ** -24, 1023 * 2 ** -24, 2 ** -14, 1, -2, 65504, 0.333251953125, -Infinity];
    const b = Buffer.alloc(4 + 2 * halves.length);
    b.writeInt32LE(halves.length, 0);
    halves.forEach((h, i) => b.writeUInt16LE(h, 4 + 2 * i));
    const p = join(dir, 'x.f16vecs');
    writeFileSync(p, b);
    const r = vecs.readVecs(p);
    expect(Array.from(r.data)).toEqual(want);
  });

  it('a truncated fvecs is HV_CORRUPT, naming the file', () => {
    const p = join(dir, 'truncated.fvecs');
    writeFileSync(p, fvecs([[1, 2, 3], [4, 5, 6]]).subarray(0, 30));
    expect(() => vecs.readVecs(p)).toThrow(expect.objectContaining({ code: 'HV_CORRUPT', message: expect.stringContaining('truncated.fvecs') }));
    const r = cliRaw(['bench', '--base', p, '--queries', 'data/sample/queries.fvecs', '--metric', 'l2']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^horosvec: HV_CORRUPT: /);
  });

  it('a row with a different dimension header is HV_CORRUPT, naming the row', () => {
    const p = join(dir, 'mixed.fvecs');
    writeFileSync(p, fvecs([[1, 2], [3, 4], [5, 6]], [2, 2, 3])); // three 12-byte rows; row 2 claims dim 3
    expect(() => vecs.readVecs(p)).toThrow(expect.objectContaining({ code: 'HV_CORRUPT', message: expect.stringMatching(/mixed\.fvecs: row 2/) }));
  });

  it('a missing file is HV_IO', () => {
    expect(() => vecs.readVecs(join(dir, 'absent.fvecs'))).toThrow(expect.objectContaining({ code: 'HV_IO' }));
  });
});

describe('examples/demo.mjs', () => {
  it('prints exact recall, the backend and semantic neighbours', () => {
    const out = execFileSync(process.execPath, ['examples/demo.mjs'], { cwd: ROOT, env: env(false), encoding: 'utf8' });
    expect(out).toContain('recall@10 = 1.000');
    expect(out).toContain('backend native');
    expect(out).toMatch(/query 2: .+\n {2}1\. \d\.\d{3} {2}\S/);
    expect(out.trimEnd().split('\n').length).toBeLessThanOrEqual(40);
  });
});
