#!/usr/bin/env node
// The benchmark matrix (`npm run bench -- [options]`): runs every job of the chosen sweeps, one
// process at a time (bench/worker.mjs), and appends each record to <out>/<sweep>.jsonl. The
// protocol, the engines and the record are described in bench/README.md.
//
//   npm run bench                      the full matrix on minilm384 (100k × 384), ≈ 1 hour on 2 cores
//   npm run bench -- --quick           every sweep and engine on a tiny prefix of the shipped
//                                      sample (what `npm test` runs); results in target/bench-quick
//   npm run bench -- --sweeps search,writes --engines horosvec,hnswlib --n 20000
//
// Options: --quick, --dataset NAME (default minilm384, or the shipped sample when ../shared is
// absent), --n N (base prefix), --nq N (queries), --k K, --seconds S (timing window), --efs LIST,
// --sweeps LIST (search,build,writes,dims,sizes,metrics,wasm; `search` includes concurrency and
// open), --engines LIST, --out DIR (default bench-results/matrix; files of the sweeps run are
// replaced unless --append), --disk-dir DIR (where on-disk engines write; default target/bench-tmp), --dry-run.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, DATASETS, datasetAvailable, common } from './lib/protocol.mjs';
import { ENGINES } from './lib/engines.mjs';

/** A usage error: one line on stderr, exit 2 (no stack trace). */
function usage(msg) {
  process.stderr.write(`bench: ${msg}\nusage: npm run bench -- [--quick] [--dataset NAME] [--n N] [--nq N] [--k K] [--seconds S] [--efs LIST] [--sweeps LIST] [--engines LIST] [--out DIR] [--disk-dir DIR] [--append] [--dry-run] (--help for more)\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    dataset: { type: 'string' },
    n: { type: 'string' },
    nq: { type: 'string' },
    k: { type: 'string', default: '10' },
    seconds: { type: 'string' },
    efs: { type: 'string' },
    sweeps: { type: 'string' },
    engines: { type: 'string' },
    out: { type: 'string' },
    'disk-dir': { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    append: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  }));
} catch (e) {
  usage(e.message);
}
if (values.help) {
  process.stdout.write(`${(await import('node:fs')).readFileSync(new URL(import.meta.url), 'utf8').split('\n').slice(1, 18).map((l) => l.replace(/^\/\/ ?/, '')).join('\n')}\n`);
  process.exit(0);
}

const SWEEPS = ['search', 'build', 'writes', 'dims', 'sizes', 'metrics', 'wasm'];
const quick = values.quick;
const list = (s) => s.split(',').map((x) => x.trim()).filter(Boolean);
const sweeps = values.sweeps ? list(values.sweeps) : SWEEPS;
for (const s of sweeps) if (!SWEEPS.includes(s)) usage(`unknown sweep ${s} (one of ${SWEEPS.join(', ')})`);
const engines = values.engines ? list(values.engines) : Object.keys(ENGINES);
for (const e of engines) if (!ENGINES[e]) usage(`unknown engine ${e} (one of ${Object.keys(ENGINES).join(', ')})`);
const dataset = values.dataset ?? (quick || !datasetAvailable('minilm384') ? 'sample' : 'minilm384');
if (!DATASETS[dataset]) usage(`unknown dataset ${dataset} (one of ${Object.keys(DATASETS).join(', ')})`);
if (!datasetAvailable(dataset)) usage(`dataset ${dataset} is not present (${DATASETS[dataset].dir}; see ../shared/data/README.md)`);
/** `v` as a number ≥ `min` (integer unless `real`), `d` when absent. */
function num(v, d, { min = 1, real = false, name } = {}) {
  if (v === undefined) return d;
  const x = Number(v);
  if (!Number.isFinite(x) || x < min || (!real && !Number.isInteger(x))) usage(`--${name} must be ${real ? 'a number' : 'an integer'} ≥ ${min}, got "${v}"`);
  return x;
}
const P = {
  dataset,
  n: num(values.n, quick ? 2000 : undefined, { name: 'n', min: 10 }),
  nq: num(values.nq, quick ? 50 : 1000, { name: 'nq' }),
  k: num(values.k, 10, { name: 'k' }),
  seconds: num(values.seconds, quick ? 0.2 : 3, { name: 'seconds', min: 0.05, real: true }),
  warmup: quick ? 5 : 50,
  efs: values.efs ? list(values.efs).map((x) => num(x, null, { name: 'efs (each)' })) : quick ? [16, 64] : [10, 16, 24, 32, 48, 64, 96, 128, 192, 256],
  concurrency: quick ? [1, 2] : [1, 2, 4, 8],
  opens: quick ? 1 : 3,
  diskDir: resolve(values['disk-dir'] ?? join(ROOT, 'target', 'bench-tmp')),
};
const out = resolve(values.out ?? join(ROOT, quick ? 'target/bench-quick' : 'bench-results/matrix'));
const metric = DATASETS[dataset].metric;
const want = (e) => engines.includes(e);
const MODES = {
  horosvec: ['exact', 'vamana-rabitq1', 'vamana-rabitq4', 'segmented-vamana-rabitq1'],
  'horosvec-wasm': ['vamana-rabitq1'],
  hnswlib: ['hnsw'],
  usearch: ['hnsw'],
  'sqlite-vec': ['vec0-scan'],
  orama: ['brute-force'],
};
const ANN = ['horosvec', 'hnswlib', 'usearch'];
// the dimension, size and metric sweeps measure horosvec as a user gets it: the code width it
// picks by dimension (the records carry the resolved mode)
const annMode = (e, m) => (e === 'horosvec' ? (m === 'l1' ? 'vamana-exact' : 'vamana') : 'hnsw');
const command = `npm run bench --${process.argv.slice(2).map((a) => ` ${a}`).join('')}`;

const jobs = [];
const job = (j) => jobs.push({ dataset, n: P.n, nq: P.nq, metric, k: P.k, seconds: P.seconds, warmup: P.warmup, efs: P.efs, diskDir: P.diskDir, ...j });
if (sweeps.includes('search')) {
  for (const e of Object.keys(MODES).filter(want)) {
    // orama scans in JavaScript (about 5 QPS at 100k × 384): its recall over 200 queries
    const nq = e === 'orama' && !quick ? Math.min(P.nq, 200) : P.nq;
    for (const mode of MODES[e]) job({ kind: 'search', engine: e, mode, nq, concurrency: P.concurrency, open: e !== 'orama' && mode !== 'exact', opens: P.opens });
  }
}
if (sweeps.includes('build')) {
  // the search jobs record builds with the engines' default threads; here horosvec and usearch with 1
  for (const e of ['horosvec', 'usearch'].filter(want)) job({ kind: 'build', engine: e, mode: e === 'horosvec' ? 'vamana-rabitq1' : 'hnsw', threads: 1 });
}
if (sweeps.includes('writes')) {
  for (const e of ['horosvec', 'sqlite-vec'].filter(want)) {
    job({ kind: 'writes', engine: e, mode: e === 'horosvec' ? 'durable' : 'vec0-scan', media: ['tmpfs', 'disk'], durabilities: ['full', 'normal', 'off'], writers: 64, batch: quick ? 100 : 1000, maxOps: quick ? 100 : 20_000, n: quick ? 2000 : 20_000 });
  }
}
const dimsSets = quick ? ['sample'] : ['glove50', 'sift128', 'minilm384'];
if (sweeps.includes('dims')) {
  for (const ds of dimsSets) {
    for (const e of ANN.filter(want)) {
      if (!datasetAvailable(ds)) {
        job({ kind: 'search', as: 'dims', engine: e, mode: annMode(e), dataset: ds, missing: true });
        continue;
      }
      job({ kind: 'search', as: 'dims', engine: e, mode: annMode(e), dataset: ds, metric: DATASETS[ds].metric, n: quick ? 2000 : 50_000, efs: quick ? [32] : [16, 32, 64, 128, 256] });
    }
  }
}
if (sweeps.includes('sizes')) {
  for (const n of quick ? [1000, 2000] : [10_000, 25_000, 50_000]) {
    for (const e of ANN.filter(want)) job({ kind: 'search', as: 'sizes', engine: e, mode: annMode(e), n, efs: quick ? [32] : [16, 32, 64, 128, 256] });
  }
}
if (sweeps.includes('metrics')) {
  for (const m of ['l2', 'cosine', 'ip', 'l1']) {
    for (const e of ANN.filter(want)) job({ kind: 'search', as: 'metrics', engine: e, mode: annMode(e, m), metric: m, n: quick ? 2000 : 50_000, efs: quick ? [32] : [16, 32, 64, 128, 256] });
  }
}
if (sweeps.includes('wasm') && want('horosvec') && want('horosvec-wasm')) {
  for (const mode of ['exact', 'vamana-rabitq1']) job({ kind: 'wasm', engine: 'horosvec', mode, efs: quick ? [32] : [16, 32, 64, 128, 256] });
}

if (values['dry-run']) {
  for (const j of jobs) process.stdout.write(`${JSON.stringify(j)}\n`);
  process.exit(0);
}

mkdirSync(out, { recursive: true });
const touched = new Set();
const file = (sweep) => {
  const f = join(out, `${sweep}.jsonl`);
  if (!touched.has(sweep)) {
    if (!values.append) writeFileSync(f, '');
    touched.add(sweep);
  }
  return f;
};
const t0 = performance.now();
let failed = 0;
for (const [i, j] of jobs.entries()) {
  const label = `${j.kind}${j.as ? `/${j.as}` : ''} ${j.engine} ${j.mode} ${j.dataset} ${j.metric} n=${j.n ?? 'all'}`;
  process.stderr.write(`[bench ${i + 1}/${jobs.length}, ${((performance.now() - t0) / 1000).toFixed(0)} s] ${label}\n`);
  if (j.missing) {
    const rec = { sweep: j.as, status: 'skipped', skip_reason: `dataset ${j.dataset} is not present (${DATASETS[j.dataset].dir})`, engine: ENGINES[j.engine].name, backend: ENGINES[j.engine].backend, mode: j.mode, dataset: j.dataset, ...common(), command };
    appendFileSync(file(j.as), `${JSON.stringify(rec)}\n`);
    continue;
  }
  const env = { ...process.env, HV_BENCH_COMMAND: command };
  if (j.threads) env.RAYON_NUM_THREADS = String(j.threads);
  const p = spawnSync(process.execPath, ['--expose-gc', join(ROOT, 'bench', 'worker.mjs'), '--job', JSON.stringify(j)], { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 });
  const lines = p.stdout.split('\n').filter((l) => l.trim() !== '');
  for (const l of lines) {
    const r = JSON.parse(l);
    appendFileSync(file(r.sweep), `${l}\n`);
  }
  if (p.status !== 0) {
    failed++;
    const rec = { sweep: j.as ?? (j.kind === 'wasm' ? 'wasm' : j.kind), status: 'failed', skip_reason: `worker exited with ${p.status ?? p.signal}`, engine: ENGINES[j.engine].name, mode: j.mode, dataset: j.dataset, ...common(), command };
    appendFileSync(file(rec.sweep), `${JSON.stringify(rec)}\n`);
    process.stderr.write(`[bench] job failed: ${label} (exit ${p.status ?? p.signal})\n`);
  }
}
process.stderr.write(`[bench] ${jobs.length} jobs in ${((performance.now() - t0) / 1000).toFixed(0)} s${failed ? `, ${failed} failed` : ''}; records in ${out}\n`);
process.exit(failed ? 1 : 0);
