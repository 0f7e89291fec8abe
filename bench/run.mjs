#!/usr/bin/env node
// The benchmark matrix (`npm run bench -- [options]`): runs every job of the chosen sweeps, one
// process at a time (bench/worker.mjs), and appends each record to <out>/<sweep>/<rev>.jsonl, <rev>
// being HEAD's short hash, with -dirty when the measured paths differ from it (the layout of
// bench-results/README.md). The protocol, the engines and the record are described in bench/README.md.
//
//   npm run bench                      the full matrix on minilm384 (100k × 384), ≈ 1 hour on 2 cores
//   npm run bench -- --quick           every sweep and engine on a tiny prefix of the shipped
//                                      sample (what `npm test` runs); results in target/bench-quick
//   npm run bench -- --sweeps search,writes --engines horosvec,hnswlib --n 20000
//   node bench/compare.mjs             the ratios of HEAD's records against the previous revision's
//
// Options: --quick, --dataset NAME (default minilm384, or the shipped sample when ../shared is
// absent), --n N (base prefix), --nq N (queries), --k K, --seconds S (timing window), --efs LIST,
// --sweeps LIST (search,build,writes,dims,sizes,metrics,wasm,filtered,browser; `search` includes concurrency and
// open, and `open` or `concurrency` name it too), --engines LIST, --out DIR (the results folder,
// default bench-results; this revision's file of each sweep run is replaced unless --append;
// --replace keeps it and swaps out only the records of the engines run), --disk-dir DIR (where
// on-disk engines write; default target/bench-tmp), --modes LIST (only these code paths in the
// search sweep; with --replace only those engines' records of these modes are swapped out),
// --dry-run (prints the jobs and the files).
// The dimension, size, metric and writes sweeps use their own datasets and sizes (see below);
// `filtered` its own n (20,000), queries (200) and window (0.5 s) unless --n, --nq, --seconds say;
// `browser` (headless Chromium, bench/browser/) its own n and ef values unless --n, --efs say.
// `search` also writes the concurrency and open records, and its builds when `build` runs too.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, DATASETS, datasetAvailable, datasetRows, common } from './lib/protocol.mjs';
import { resultFile } from './lib/results.mjs';
import { ENGINES } from './lib/engines.mjs';
import { BROWSER_ENGINES } from './browser/engines.mjs';

/** A usage error: one line on stderr, exit 2 (no stack trace). */
function usage(msg) {
  process.stderr.write(`bench: ${msg}\nusage: npm run bench -- [--quick] [--dataset NAME] [--n N] [--nq N] [--k K] [--seconds S] [--efs LIST] [--sweeps LIST] [--engines LIST] [--modes LIST] [--out DIR] [--disk-dir DIR] [--append] [--dry-run] (--help for more)\n`);
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
    replace: { type: 'boolean', default: false },
    modes: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  }));
} catch (e) {
  usage(e.message);
}
if (values.help) {
  const text = readFileSync(new URL(import.meta.url), 'utf8').split('\n');
  const end = text.findIndex((l, i) => i > 0 && !l.startsWith('//'));
  process.stdout.write(`${text.slice(1, end).map((l) => l.replace(/^\/\/ ?/, '')).join('\n')}\n`);
  process.exit(0);
}

// the browser sweep's default size: a prefix of minilm384 (see bench/README.md, "Browser sweep")
const BROWSER_N = 20_000;
const SWEEPS = ['search', 'build', 'writes', 'dims', 'sizes', 'metrics', 'wasm', 'filtered', 'browser'];
// the records `search` writes besides its own: naming them runs `search`
const ALIASES = { open: 'search', concurrency: 'search' };
const quick = values.quick;
for (const [k, v] of Object.entries(values)) if (v === '') usage(`--${k} needs a value`);
if (values.append && values.replace) usage('--append and --replace do not go together');
const list = (s) => s.split(',').map((x) => x.trim()).filter(Boolean);
const sweeps = values.sweeps ? [...new Set(list(values.sweeps).map((s) => ALIASES[s] ?? s))] : SWEEPS;
for (const s of sweeps) if (!SWEEPS.includes(s)) usage(`unknown sweep ${s} (one of ${[...SWEEPS, ...Object.keys(ALIASES)].join(', ')})`);
// the engines a job names: the Node matrix's (bench/lib/engines.mjs) and the browser sweep's
// (bench/browser/engines.mjs; horosvec-wasm and orama are in both)
const engineOf = (e) => ENGINES[e] ?? BROWSER_ENGINES[e];
const ALL_ENGINES = [...new Set([...Object.keys(ENGINES), ...Object.keys(BROWSER_ENGINES)])];
const engines = values.engines ? list(values.engines) : ALL_ENGINES;
// --modes: only these code paths of the search sweep (e.g. horosvec's vamana-rabitq1 beside the new engines)
const modes = values.modes ? list(values.modes) : null;
for (const e of engines) if (!engineOf(e)) usage(`unknown engine ${e} (one of ${ALL_ENGINES.join(', ')})`);
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
  efs: values.efs ? [...new Set(list(values.efs).map((x) => num(x, null, { name: 'efs (each)' })))].sort((a, b) => a - b) : quick ? [16, 64] : [10, 16, 24, 32, 48, 64, 96, 128, 192, 256],
  concurrency: quick ? [1, 2] : [1, 2, 4, 8],
  opens: quick ? 1 : 3,
  diskDir: resolve(values['disk-dir'] ?? join(ROOT, 'target', 'bench-tmp')),
};
const rows = datasetRows(dataset);
if (P.n !== undefined && P.n > rows) {
  process.stderr.write(`bench: --n ${P.n} is more than ${dataset}'s ${rows} rows: using ${rows}\n`);
  P.n = rows;
}
if (P.k > (P.n ?? rows)) usage(`--k ${P.k} is more than the ${P.n ?? rows} rows searched`);
if (P.efs.some((ef) => ef < P.k)) usage(`every --efs value must be at least k (${P.k}): the engines search with max(ef, k)`);
const out = resolve(values.out ?? join(ROOT, quick ? 'target/bench-quick' : 'bench-results'));
for (const [flag, dir] of [['out', out], ['disk-dir', P.diskDir]]) {
  if (existsSync(dir) && !statSync(dir).isDirectory()) usage(`--${flag} ${dir} is a file, not a directory`);
  if (dir.startsWith('/proc/') || dir.startsWith('/sys/')) usage(`--${flag} ${dir} is not a writable directory`);
}
const metric = DATASETS[dataset].metric;
const want = (e) => engines.includes(e);
const MODES = {
  horosvec: ['exact', 'vamana-rabitq1', 'vamana-rabitq1-hr', 'vamana-rabitq4', 'segmented-vamana-rabitq1'],
  'horosvec-wasm': ['vamana-rabitq1'],
  hnswlib: ['hnsw'],
  usearch: ['hnsw'],
  'sqlite-vec': ['vec0-scan'],
  orama: ['brute-force'],
  zvec: ['hnsw', 'hnsw-int8-refine', 'hnsw-rabitq'],
  lancedb: ['ivf-pq', 'ivf-rq'],
  faiss: ['hnsw', 'ivf-flat'],
  // the browser sweep's wasm engines, under Node (bench/lib/engines.mjs wasmInNode)
  'hnswlib-wasm': ['hnsw'],
  edgevec: ['hnsw', 'hnsw-bq-rescore'],
  voy: ['kd-tree'],
};
const ANN = ['horosvec', 'hnswlib', 'usearch'];
const WASM_NODE = ['hnswlib-wasm', 'edgevec', 'voy'];
const WASM_NODE_N = 20_000;
// the dimension, size and metric sweeps measure horosvec as a user gets it: the code width it
// picks by dimension (the records carry the resolved mode)
const annMode = (e, m) => (e === 'horosvec' ? (m === 'l1' ? 'vamana-exact' : 'vamana') : 'hnsw');
const command = `npm run bench --${process.argv.slice(2).map((a) => ` ${a}`).join('')}`;

const jobs = [];
const job = (j) => jobs.push({ quick, dataset, n: P.n, nq: P.nq, metric, k: P.k, seconds: P.seconds, warmup: P.warmup, efs: P.efs, diskDir: P.diskDir, ...j });
if (sweeps.includes('search')) {
  for (const e of Object.keys(MODES).filter(want)) {
    // orama scans in JavaScript (about 5 QPS at 100k × 384): its recall over 200 queries
    const nq = e === 'orama' && !quick ? Math.min(P.nq, 200) : P.nq;
    // cold opens drop the machine's page cache (root only): not in --quick, which npm test runs
    // the browser sweep's wasm engines under Node build in scalar wasm on one thread (EdgeVec took
    // 1.3–4.4 min for 20,000 rows in the browser sweep): the first WASM_NODE_N rows unless --n says
    const n = WASM_NODE.includes(e) && values.n === undefined && !quick ? Math.min(WASM_NODE_N, rows) : P.n;
    const open = e !== 'orama' && !WASM_NODE.includes(e);
    for (const mode of MODES[e].filter((m) => modes === null || modes.includes(m))) job({ kind: 'search', engine: e, mode, n, nq, concurrency: P.concurrency, open: open && mode !== 'exact', opens: P.opens, cold: !quick });
    // horosvec's wasm backend also at the Node wasm engines' n, to be compared with them
    const wasmN = values.n === undefined && !quick ? Math.min(WASM_NODE_N, rows) : P.n;
    if (e === 'horosvec-wasm' && WASM_NODE.some(want) && wasmN !== P.n && wasmN < rows) {
      for (const mode of MODES[e].filter((m) => modes === null || modes.includes(m))) job({ kind: 'search', engine: e, mode, n: wasmN, nq, concurrency: P.concurrency, open: true, opens: P.opens, cold: !quick });
    }
  }
}
if (sweeps.includes('build')) {
  // the search jobs record builds with the engines' default threads; here horosvec and usearch with 1
  for (const e of ['horosvec', 'usearch'].filter(want)) job({ kind: 'build', engine: e, mode: e === 'horosvec' ? 'vamana-rabitq1' : 'hnsw', threads: 1 });
}
if (sweeps.includes('writes')) {
  // side by side: one job per (medium, durability, engine), the engines' jobs next to each other
  // (their order swapped at every setting), so both see the same machine within minutes instead
  // of one engine's whole sweep running before the other's
  const engines = ['horosvec', 'sqlite-vec'].filter(want);
  let turn = 0;
  for (const medium of ['tmpfs', 'disk']) {
    for (const durability of ['full', 'normal', 'off']) {
      const order = turn++ % 2 === 0 ? engines : [...engines].reverse();
      for (const e of order) {
        job({ kind: 'writes', engine: e, mode: e === 'horosvec' ? 'durable' : 'vec0-scan', media: [medium], durabilities: [durability], writers: 64, batch: quick ? 100 : 1000, maxOps: quick ? 100 : 20_000, n: quick ? 2000 : 20_000 });
      }
    }
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
  const sizes = (quick ? [1000, 2000] : [10_000, 25_000, 50_000]).filter((n) => n <= rows);
  for (const n of sizes.length ? sizes : [rows]) {
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

if (sweeps.includes('filtered')) {
  // filtered search (bench/lib/filters.mjs): its own short settings, ≈ 4-5 min on 2 cores: n =
  // 20,000 (or --n), 200 queries (orama, a JavaScript scan: 50), a 0.5 s window per point (or
  // --seconds); every filter at each ef, horosvec's default ef (none passed) included
  const n = values.n !== undefined ? P.n : quick ? 2000 : Math.min(20_000, rows);
  const nq = values.nq !== undefined ? P.nq : quick ? 20 : 200;
  const seconds = values.seconds !== undefined ? P.seconds : quick ? 0.1 : 0.5;
  const given = values.efs ? P.efs : null;
  const efs = {
    main: [null, ...(given ?? (quick ? [32] : [16, 32, 128]))],
    other: [null, ...(given ?? (quick ? [] : [128]))],
    hnsw: given ?? (quick ? [32] : [16, 32, 64, 128]),
  };
  const FILTERED = [
    ['horosvec', 'vamana-rabitq1', efs.main],
    ['horosvec', 'segmented-vamana-rabitq1', efs.other],
    ['horosvec-wasm', 'vamana-rabitq1', efs.other],
    ['hnswlib', 'hnsw', efs.hnsw],
    ['usearch', 'hnsw', efs.hnsw],
    ['sqlite-vec', 'vec0-scan', [null]],
    ['orama', 'brute-force', [null]],
  ];
  for (const [e, mode, list] of FILTERED.filter(([e]) => want(e))) {
    job({ kind: 'filtered', engine: e, mode, n, nq: e === 'orama' && values.nq === undefined ? Math.min(nq, 50) : nq, seconds, warmup: quick ? 5 : 20, efs: list });
  }
}

if (sweeps.includes('browser')) {
  // the browser sweep (bench/browser/): each engine in a fresh headless Chromium, on the first
  // BROWSER_N rows of minilm384 (--n; the shipped sample's first 2,000 in --quick), its own ef
  // values (--efs) and EdgeVec's rescore factors; `horosvec` names horosvec-wasm here
  const n = values.n !== undefined ? P.n : quick ? 2000 : Math.min(BROWSER_N, rows);
  const efs = values.efs ? P.efs : quick ? [16, 64] : [16, 32, 64, 128, 256];
  const factors = quick ? [1, 5] : [1, 2, 3, 5, 8, 12, 20, 30];
  for (const [e, b] of Object.entries(BROWSER_ENGINES).filter(([e]) => want(e) || (e === 'horosvec-wasm' && want('horosvec')))) {
    // orama scans in JavaScript: its recall over 200 queries, as in the search sweep
    const nq = e === 'orama' && !quick ? Math.min(P.nq, 200) : P.nq;
    job({ kind: 'browser', engine: e, mode: b.modes.join(','), n, nq, efs, factors });
  }
}

if (jobs.length === 0) usage(`nothing to run: no engine of --engines ${engines.join(',')} takes part in --sweeps ${sweeps.join(',')}`);
// The files this run writes: each sweep's own, and search's concurrency and open records, in
// this revision's file of each (<out>/<sweep>/<rev>.jsonl)
const files = new Set(sweeps.flatMap((s) => (s === 'search' ? ['search', 'concurrency', 'open'] : [s])));
const here = common();
const file = (sweep) => resultFile(out, sweep, here);
if (values['dry-run']) {
  for (const j of jobs) process.stdout.write(`${JSON.stringify(j)}\n`);
  process.stderr.write(`[bench] dry run: ${jobs.length} jobs; records would go to ${[...files].map(file).join(', ')}\n`);
  process.exit(0);
}

// the engine / backend pairs this run measures (horosvec-wasm's records are engine horosvec, backend wasm)
const runEngines = new Set(jobs.map((j) => `${engineOf(j.engine).name}|${engineOf(j.engine).backend}`));
try {
  mkdirSync(P.diskDir, { recursive: true });
  for (const s of files) {
    const f = file(s);
    mkdirSync(join(out, s), { recursive: true });
    if (values.append) continue;
    if (values.replace && existsSync(f)) {
      // keep the records of the engines this run does not measure
      const run = (r) => runEngines.has(`${r.engine}|${r.backend}`) && (modes === null || modes.includes(r.mode));
      const keep = readFileSync(f, 'utf8').split('\n').filter((l) => l.trim() !== '' && !run(JSON.parse(l)));
      writeFileSync(f, keep.map((l) => `${l}\n`).join(''));
    } else {
      writeFileSync(f, '');
    }
  }
} catch (e) {
  usage(`cannot write the results: ${e.message}`);
}
const t0 = performance.now();
let failed = 0;
for (const [i, j] of jobs.entries()) {
  const label = `${j.kind}${j.as ? `/${j.as}` : ''} ${j.engine} ${j.mode} ${j.dataset} ${j.metric} n=${j.n ?? 'all'}`;
  process.stderr.write(`[bench ${i + 1}/${jobs.length}, ${((performance.now() - t0) / 1000).toFixed(0)} s] ${label}\n`);
  if (j.missing) {
    const rec = { sweep: j.as, status: 'skipped', skip_reason: `dataset ${j.dataset} is not present (${DATASETS[j.dataset].dir})`, engine: engineOf(j.engine).name, backend: engineOf(j.engine).backend, mode: j.mode, dataset: j.dataset, ...common(), command };
    if (files.has(j.as)) appendFileSync(file(j.as), `${JSON.stringify(rec)}\n`);
    continue;
  }
  const env = { ...process.env, HV_BENCH_COMMAND: command };
  if (j.threads) env.RAYON_NUM_THREADS = String(j.threads);
  // one job may take a while (hnswlib builds 100k × 384 in ~90 s) but never this long
  const timeout = (quick ? 5 : 60) * 60_000;
  const p = spawnSync(process.execPath, ['--expose-gc', join(ROOT, 'bench', 'worker.mjs'), '--job', JSON.stringify(j)], { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28, timeout, killSignal: 'SIGKILL' });
  const lines = p.stdout.split('\n').filter((l) => l.trim() !== '');
  let reported = false;
  for (const l of lines) {
    const r = JSON.parse(l);
    reported ||= r.status === 'failed';
    // a search job's builds belong to the build sweep only when it runs
    if (!files.has(r.sweep)) continue;
    appendFileSync(file(r.sweep), `${l}\n`);
  }
  if (p.status !== 0) {
    failed++;
    const why = p.error?.code === 'ETIMEDOUT' ? `timed out after ${timeout / 60_000} min` : `worker exited with ${p.status ?? p.signal}`;
    if (!reported) {
      const e = engineOf(j.engine);
      const rec = { sweep: j.as ?? (j.kind === 'wasm' ? 'wasm' : j.kind), status: 'failed', skip_reason: why, engine: e.name, backend: e.backend, mode: j.mode, dataset: j.dataset, ...common(), command };
      appendFileSync(file(rec.sweep), `${JSON.stringify(rec)}\n`);
    }
    process.stderr.write(`[bench] job failed: ${label} (${why})\n`);
  }
}
process.stderr.write(`[bench] ${jobs.length} jobs in ${((performance.now() - t0) / 1000).toFixed(0)} s${failed ? `, ${failed} failed` : ''}; records in ${out}\n`);
process.exit(failed ? 1 : 0);
