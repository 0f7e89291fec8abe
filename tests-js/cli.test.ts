// The command-line tool (npm/cli/horosvec.js), its vector-file readers (npm/cli/vecs.js) and the
// demo (examples/demo.mjs), run as a user runs them: as child processes on the shipped sample.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = 'npm/cli/horosvec.js';
const SAMPLE_ARGS = ['bench', '--dataset', 'sample', '--nq', '50', '--seconds', '0.2', '--warmup', '5', '--json'];

type VecsModule = {
  readVecs(path: string): { n: number; dim: number; data: Float32Array | Int32Array | Uint8Array };
};

function env(wasm: boolean): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env };
  delete e.HOROSVEC_FORCE_WASM;
  if (wasm) e.HOROSVEC_FORCE_WASM = '1';
  return e;
}

/** Runs the CLI expecting success; returns stdout. */
function cli(args: string[], wasm = false): string {
  return execFileSync(process.execPath, [CLI, ...args], { cwd: ROOT, env: env(wasm), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs the CLI whatever the outcome. */
function cliRaw(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, env: env(false), encoding: 'utf8' });
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

describe('horosvec bench', () => {
  it('native: two JSONL records, exact recall 1 against the shipped ground truth', () => {
    const recs = records(cli(SAMPLE_ARGS));
    checkRecords(recs, 'native', 20000, 50);
    expect(recs[0].ground_truth).toBe('file');
  });

  it('wasm (HOROSVEC_FORCE_WASM=1): the same records from the wasm backend', () => {
    const recs = records(cli(SAMPLE_ARGS, true));
    checkRecords(recs, 'wasm', 20000, 50);
    expect(recs[0].threads).toBe(1);
  });

  it('--n 2000: ground truth recomputed for the prefix, recall still 1', () => {
    const recs = records(cli([...SAMPLE_ARGS, '--n', '2000']));
    checkRecords(recs, 'native', 2000, 50);
    expect(recs[0].ground_truth).toBe('brute-force-f64');
    const human = cli(['bench', '--dataset', 'sample', '--n', '2000', '--nq', '20', '--seconds', '0.05', '--warmup', '1']);
    expect(human).toMatch(/ground truth\s+recomputed/);
    expect(human).toMatch(/recall@10\s+mean 1\.0000\s+min 1\.0000/);
    expect(human).toContain('backend native');
  });

  it('--help and --version', () => {
    expect(cli(['--help'])).toContain('usage: horosvec bench');
    expect(cli(['bench', '--help'])).toContain('--seconds');
    expect(cli(['--version']).trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('bad arguments exit with code 2 and a usage line', () => {
    const bad = [
      ['bench'],
      ['bench', '--dataset', 'sample', '--metric', 'hamming'],
      ['bench', '--dataset', 'sample', '--k', '0'],
      ['bench', '--dataset', 'sample', '--k', '2.5'],
      ['bench', '--dataset', 'sample', '--frobnicate'],
      ['bench', '--dataset', 'no-such-set'],
      ['frobnicate'],
      [],
    ];
    for (const args of bad) {
      const r = cliRaw(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^horosvec: .+\nusage: horosvec bench/);
      expect(r.stdout).toBe('');
    }
  });

  it('a missing file exits with code 1 and HV_IO', () => {
    const r = cliRaw(['bench', '--base', 'no/such/base.fvecs', '--queries', 'data/sample/queries.fvecs', '--metric', 'cosine']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^horosvec: HV_IO: .*no\/such\/base\.fvecs/);
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
