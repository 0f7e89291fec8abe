// `horosvec bench` (npm/cli/bench.js): horosvec's own benchmark, shipped in the package, on the
// shipped sample (npm/sample/ once packed, else data/sample's same prefix) and on the user's own
// vector files. Checks the records and the exit codes, never speed.
import { spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdtempSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rng } from './helpers/backends.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'npm/cli/horosvec.js');
const FAST = ['--seconds', '0.05', '--warmup', '2'];
const USAGE = /^horosvec: .+\nusage: horosvec bench/;

function run(args: string[], opts: { wasm?: boolean; cli?: string } = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.HOROSVEC_FORCE_WASM;
  if (opts.wasm) env.HOROSVEC_FORCE_WASM = '1';
  const r = spawnSync(process.execPath, [opts.cli ?? CLI, 'bench', ...args], { cwd: ROOT, env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function jsonl(stdout: string): Record<string, unknown>[] {
  return stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

const FIELDS = ['tool', 'engine', 'engine_version', 'backend', 'kernel', 'threads', 'mode', 'params', 'dataset', 'n', 'nq', 'dim', 'metric', 'k',
  'ground_truth', 'build_s', 'add_s', 'index_s', 'recall_mean', 'recall_min', 'qps', 'p50_ms', 'p99_ms', 'latency_unit', 'batch', 'node', 'platform', 'arch', 'date'];

function check(recs: Record<string, unknown>[], backend: string, efs: number[]) {
  expect(recs).toHaveLength(2 + 2 * efs.length);
  for (const r of recs) {
    for (const f of FIELDS) expect(r, f).toHaveProperty(f);
    expect(r).toMatchObject({ tool: 'horosvec bench', engine: 'horosvec', backend, metric: 'cosine', dataset: 'sample', n: 2000, nq: 100, dim: 384, k: 10 });
    expect(['file', 'exact-f64']).toContain(r.ground_truth);
    for (const f of ['qps', 'p50_ms', 'p99_ms', 'build_s'] as const) expect(r[f] as number, f).toBeGreaterThan(0);
    expect(r.p99_ms as number).toBeGreaterThanOrEqual(r.p50_ms as number);
  }
  expect(recs.slice(0, 2).map((r) => [r.mode, r.batch, r.recall_mean])).toEqual([['exact', 1, 1], ['exact-batch', 64, 1]]);
  const idx = recs.slice(2);
  expect(idx.map((r) => (r.params as { ef: number }).ef)).toEqual(efs.flatMap((e) => [e, e]));
  expect(idx.map((r) => r.mode)).toEqual(efs.flatMap(() => ['vamana-rabitq1', 'vamana-rabitq1-batch']));
  for (const r of idx) {
    expect(r.params).toMatchObject({ R: 32, L: 64, alpha: 1.1, passes: 1, bits: 1, seed: 42 });
    expect(r.index_s as number).toBeGreaterThan(0);
  }
  // a floor, far below what the sample gives (≈ 0.98 at ef 64)
  expect(idx.at(-1)!.recall_mean as number).toBeGreaterThanOrEqual(0.9);
}

describe('horosvec bench --dataset sample', () => {
  it('native: the exact scan, then the index at each ef, single and batch', () => {
    const r = run(['--dataset', 'sample', '--ef', '16,64', '--json', ...FAST]);
    expect(r.status, r.stderr).toBe(0);
    const recs = jsonl(r.stdout);
    check(recs, 'native', [16, 64]);
    expect(recs[0].threads as number).toBeGreaterThanOrEqual(1);
  });

  it('wasm (HOROSVEC_FORCE_WASM=1): the same records from the wasm backend', () => {
    const r = run(['--dataset', 'sample', '--ef', '64', '--json', ...FAST], { wasm: true });
    expect(r.status, r.stderr).toBe(0);
    const recs = jsonl(r.stdout);
    check(recs, 'wasm', [64]);
    expect(recs[0]).toMatchObject({ threads: 1, kernel: 'wasm-simd128' });
  });

  it('the summary: backend, kernel, build time and one row per search', () => {
    const r = run(['--dataset', 'sample', '--ef', '16,64', ...FAST]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/backend native {2}kernel \S+ {2}threads \d+/);
    expect(r.stdout).toMatch(/buildIndex +[\d.]+ s {2}\(vamana-rabitq1: R 32 {2}L 64/);
    expect(r.stdout).toMatch(/\n {2}exact +1\.0000 +1\.00 +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+\n {2}ef 16 +0\.\d{4}.*\n {2}ef 64 +[01]\.\d{4}/);
    expect(r.stderr).toBe(''); // no progress without a terminal
  });

  it('--no-index: the exact scan only', () => {
    const r = run(['--dataset', 'sample', '--no-index', '--json', ...FAST]);
    expect(r.status, r.stderr).toBe(0);
    expect(jsonl(r.stdout).map((x) => x.mode)).toEqual(['exact', 'exact-batch']);
  });
});

describe('horosvec bench on the user\'s files', () => {
  let dir: string;
  const dim = 8;
  const fvecs = (rows: number[][], d = dim) => {
    const b = Buffer.alloc(rows.length * (4 + 4 * d));
    rows.forEach((r, i) => {
      b.writeInt32LE(d, i * (4 + 4 * d));
      r.forEach((x, j) => b.writeFloatLE(x, i * (4 + 4 * d) + 4 + 4 * j));
    });
    return b;
  };
  const ivecs = (rows: number[][]) => {
    const d = rows[0].length;
    const b = Buffer.alloc(rows.length * (4 + 4 * d));
    rows.forEach((r, i) => {
      b.writeInt32LE(d, i * (4 + 4 * d));
      r.forEach((x, j) => b.writeInt32LE(x, i * (4 + 4 * d) + 4 + 4 * j));
    });
    return b;
  };
  const r = rng(16);
  const base = Array.from({ length: 300 }, () => Array.from({ length: dim }, () => r() * 2 - 1));
  const queries = Array.from({ length: 20 }, () => Array.from({ length: dim }, () => r() * 2 - 1));
  // exact l2 top-10 by a plain sort (the test's own reference)
  const truth = queries.map((q) => base.map((x, i) => ({ i, d: x.reduce((s, v, j) => s + (v - q[j]) ** 2, 0) })).sort((a, b) => a.d - b.d || a.i - b.i).slice(0, 10).map((e) => e.i));
  const p = (f: string) => join(dir, f);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hv-bench-files-'));
    writeFileSync(p('base.fvecs'), fvecs(base));
    writeFileSync(p('queries.fvecs'), fvecs(queries));
    writeFileSync(p('gt.ivecs'), ivecs(truth));
    writeFileSync(p('bad-gt.ivecs'), ivecs(truth.map((t) => t.map((x) => x + 1000))));
    writeFileSync(p('q4.fvecs'), fvecs([[1, 2, 3, 4]], 4));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('computes the ground truth exactly when none is given; uses the file when given', () => {
    const a = run(['--base', p('base.fvecs'), '--queries', p('queries.fvecs'), '--ef', '32', '--json', ...FAST]);
    expect(a.status, a.stderr).toBe(0);
    const ra = jsonl(a.stdout);
    expect(ra).toHaveLength(4);
    expect(ra[0]).toMatchObject({ dataset: 'base.fvecs', n: 300, nq: 20, dim, metric: 'l2', ground_truth: 'exact-f64', recall_mean: 1, recall_min: 1 });
    const b = run(['--base', p('base.fvecs'), '--queries', p('queries.fvecs'), '--groundtruth', p('gt.ivecs'), '--no-index', '--json', ...FAST]);
    expect(b.status, b.stderr).toBe(0);
    expect(jsonl(b.stdout)[0]).toMatchObject({ ground_truth: 'file', recall_mean: 1 });
    const c = run(['--base', p('base.fvecs'), '--queries', p('queries.fvecs'), '--metric', 'l1', '--n', '100', '--nq', '5', '--no-index', '--json', ...FAST]);
    expect(c.status, c.stderr).toBe(0);
    expect(jsonl(c.stdout)[0]).toMatchObject({ n: 100, nq: 5, metric: 'l1', ground_truth: 'exact-f64', recall_mean: 1 });
  });

  it('bad command lines exit with code 2 and the usage', () => {
    const bad = [
      [],
      ['--dataset', 'minilm384'],
      ['--base', p('base.fvecs')],
      ['--queries', p('queries.fvecs')],
      ['--base', p('base.fvecs'), '--queries', p('queries.fvecs'), '--metric', 'hamming'],
      ['--base', p('base.fvecs'), '--queries', p('queries.fvecs'), '--groundtruth', p('gt.ivecs'), '--n', '10'],
      ['--dataset', 'sample', '--base', p('base.fvecs')],
      ['--dataset', 'sample', '--metric', 'l2'],
      ['--dataset', 'sample', '--k', '0'],
      ['--dataset', 'sample', '--ef', '10,x'],
      ['--dataset', 'sample', '--no-index', '--R', '16'],
      ['--dataset', 'sample', '--frobnicate'],
      ['--dataset', 'sample', 'extra'],
    ];
    for (const args of bad) {
      const r = run(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(USAGE);
      expect(r.stdout).toBe('');
    }
    // a negative value: parseArgs's hint about --opt=-value is kept
    const neg = run(['--dataset', 'sample', '--ef', '-5']);
    expect(neg.status).toBe(2);
    expect(neg.stderr).toMatch(/^horosvec: Option '--ef' argument is ambiguous\. To specify an option argument starting with a dash use '--ef=-XYZ'\.\nusage: /);
    const eq = run(['--dataset', 'sample', '--ef=-5']);
    expect(eq.status).toBe(2);
    expect(eq.stderr).toMatch(/^horosvec: --ef must be a comma-separated list of integers from 1 to 100000, got "-5"\n/);
  });

  it('data errors exit with code 1 and their code', () => {
    const cases: [string[], RegExp][] = [
      [['--base', p('absent.fvecs'), '--queries', p('queries.fvecs')], /^horosvec: HV_IO: .*absent\.fvecs/],
      [['--base', p('base.fvecs'), '--queries', p('q4.fvecs')], /^horosvec: HV_DIM_MISMATCH: /],
      [['--base', p('base.fvecs'), '--queries', p('queries.fvecs'), '--groundtruth', p('bad-gt.ivecs')], /^horosvec: HV_CORRUPT: .*bad-gt\.ivecs/],
      [['--base', p('base.fvecs'), '--queries', p('queries.fvecs'), '--groundtruth', p('gt.ivecs'), '--k', '20'], /^horosvec: HV_INVALID_ARGUMENT: .*fewer than --k 20/],
      [['--base', p('base.fvecs'), '--queries', p('queries.fvecs'), '--k', '301'], /^horosvec: HV_INVALID_ARGUMENT: --k 301 exceeds/],
      [['--base', p('gt.ivecs'), '--queries', p('queries.fvecs')], /^horosvec: HV_INVALID_ARGUMENT: /],
    ];
    for (const [args, want] of cases) {
      const r = run(args);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(want);
    }
  });

  it.runIf(existsSync('/dev/full'))('an unwritable output (stdout on /dev/full) is HV_IO with exit code 1, not a stack trace', () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.HOROSVEC_FORCE_WASM;
    delete env.HOROSVEC_DEBUG;
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [CLI, 'bench', '--base', p('base.fvecs'), '--queries', p('queries.fvecs'), '--no-index', '--json', ...FAST], { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', full, 'pipe'] });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^horosvec: HV_IO: cannot write the output: ENOSPC/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      closeSync(full);
    }
  });

  it('an installed copy without its sample says so (HV_IO), and runs on files', () => {
    const pkg = join(dir, 'node_modules', 'horosvec');
    mkdirSync(pkg, { recursive: true });
    for (const f of ['cli', 'lib', 'native', 'wasm', 'package.json', 'node.js', 'wasm-node.js', 'browser.js']) cpSync(join(ROOT, 'npm', f), join(pkg, f), { recursive: true });
    const cli = join(pkg, 'cli', 'horosvec.js');
    const r = run(['--dataset', 'sample'], { cli });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^horosvec: HV_IO: the sample is missing/);
    const ok = run(['--base', p('base.fvecs'), '--queries', p('queries.fvecs'), '--no-index', '--json', ...FAST], { cli });
    expect(ok.status, ok.stderr).toBe(0);
    expect(jsonl(ok.stdout)[0]).toMatchObject({ backend: 'native', recall_mean: 1 });
  });
});
