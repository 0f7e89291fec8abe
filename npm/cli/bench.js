// `horosvec bench`: horosvec's own benchmark, shipped in the package (no competitor, no repository
// files needed). On the user's vector files or on the small sample the package ships
// (npm/sample/, written at pack time by scripts/prepack.mjs: the first 2,000 base vectors and 100
// queries of the repository's data/sample, with their exact ground truth), it measures an exact
// scan and the Vamana + RaBitQ index over an ef sweep: recall@k, single-query and batch QPS,
// latency percentiles, build time. One JSON record per point with --json. The repository's
// bench/ef-sweep.mjs (with hnswlib-node, datasets of ../shared) is the developers' version.
//
// Exit codes: 0 success, 1 data / runtime error (`horosvec: HV_CODE: message`), 2 bad command
// line (message, then the usage line).

import { existsSync } from 'node:fs';
import os from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { coded, parseArgsMessage, printError, UsageError } from './errors.js';
import { efList, intArg, numArg } from './args.js';
import { exactTopK } from './groundtruth.js';
import { readVecs } from './vecs.js';

const PKG_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The sample shipped in the package, and (in a checkout, before any pack) where it comes from. */
export const SAMPLE = { dir: join(PKG_DIR, 'sample'), n: 2000, nq: 100, metric: 'cosine', checkout: join(PKG_DIR, '..', 'data', 'sample') };

const METRICS = ['l2', 'cosine', 'ip', 'l1'];
const DEFAULT_EFS = [16, 32, 64, 128];
const INDEX_DEFAULTS = { R: 32, L: 64, alpha: 1.1, passes: 1, seed: 42 };
const ADD_CHUNK = 10_000;

export const USAGE =
  'usage: horosvec bench (--dataset sample | --base FILE --queries FILE [--groundtruth FILE] [--metric l2|cosine|ip|l1])\n' +
  '                      [--k 10] [--n N] [--nq NQ] [--ef 16,32,64,128] [--R 32] [--L 64] [--alpha 1.1] [--passes 1]\n' +
  '                      [--bits 1-8] [--seed 42] [--batch 64] [--seconds 1] [--warmup 20] [--no-index] [--json]';

const SHORT_USAGE = 'usage: horosvec bench (--dataset sample | --base FILE --queries FILE [--groundtruth FILE]) [options]  (see horosvec bench --help)';

export const HELP = `horosvec bench — recall and throughput of horosvec on your vectors or on the shipped sample

${USAGE}

  Builds an in-memory collection (ids = base row numbers), then measures:
    * exact scan (exact: true): recall@k, single-query QPS and p50/p99 latency (searchSync, one
      query at a time, cycling over the queries for at least --seconds after --warmup searches),
      batch QPS (searchBatch of --batch queries per call);
    * the Vamana graph + RaBitQ index (buildIndex, timed): the same figures at every ef of --ef.
  Every record names the backend (native or wasm: HOROSVEC_FORCE_WASM=1 forces wasm), the distance
  kernel, the batch threads and the parameters.

  --dataset sample  the sample shipped in the package: ${SAMPLE.n} base vectors (384-d, all-MiniLM-L6-v2
                    sentence embeddings, half precision) and ${SAMPLE.nq} held-out queries, cosine,
                    with exact ground truth
  --base FILE       base vectors: .fvecs, .f16vecs or .bvecs (TEXMEX layout: per row an int32
                    dimension, then the values)
  --queries FILE    query vectors (same dimension)
  --groundtruth FILE
                    .ivecs, row i = the ids of query i's nearest base rows, best first; without
                    it the ground truth is computed exactly (float64 brute force: n × nq × dim
                    operations, slow for millions of rows)
  --metric M        l2 (default for files) | cosine | ip | l1
  --k K             neighbours per query (default 10)
  --n N             only the first N base rows (a --groundtruth file then does not apply)
  --nq NQ           only the first NQ queries
  --ef LIST         comma-separated search list sizes (default ${DEFAULT_EFS.join(',')})
  --R, --L, --alpha, --passes, --bits, --seed
                    buildIndex options (defaults ${INDEX_DEFAULTS.R}, ${INDEX_DEFAULTS.L}, ${INDEX_DEFAULTS.alpha}, ${INDEX_DEFAULTS.passes}, by dimension, ${INDEX_DEFAULTS.seed})
  --batch B         queries per searchBatch call (default 64)
  --seconds S       minimum duration of each timed loop (default 1)
  --warmup W        untimed searches before each single-query loop (default 20)
  --no-index        the exact scan only
  --json            one JSON line per measured point instead of the summary

  Progress goes to stderr when it is a terminal (a bar if the cli-progress package is
  installed, plain lines otherwise).
`;

// ---- arguments --------------------------------------------------------------------------------

const STRINGS = ['dataset', 'base', 'queries', 'groundtruth', 'metric', 'k', 'n', 'nq', 'ef', 'R', 'L', 'alpha', 'passes', 'bits', 'seed', 'batch', 'seconds', 'warmup'];

export function parseBench(args) {
  let values;
  try {
    const options = { ...Object.fromEntries(STRINGS.map((f) => [f, { type: 'string' }])), 'no-index': { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };
    ({ values } = parseArgs({ args, strict: true, allowPositionals: false, options }));
  } catch (e) {
    throw new UsageError(parseArgsMessage(e));
  }
  if (values.help) return { help: true };
  const o = {
    k: intArg(values, 'k', 10, 1, 10_000),
    n: intArg(values, 'n', null, 1),
    nq: intArg(values, 'nq', null, 1),
    efs: efList(values.ef, DEFAULT_EFS),
    R: intArg(values, 'R', INDEX_DEFAULTS.R, 1, 4096),
    L: intArg(values, 'L', INDEX_DEFAULTS.L, 1, 100_000),
    alpha: numArg(values, 'alpha', INDEX_DEFAULTS.alpha, 1, 4),
    passes: intArg(values, 'passes', INDEX_DEFAULTS.passes, 1, 8),
    bits: intArg(values, 'bits', undefined, 1, 8),
    seed: intArg(values, 'seed', INDEX_DEFAULTS.seed, 0, 0xffff_ffff),
    batch: intArg(values, 'batch', 64, 1, 65_536),
    seconds: numArg(values, 'seconds', 1, 0, 86_400),
    warmup: intArg(values, 'warmup', 20, 0),
    index: values['no-index'] !== true,
    json: values.json === true,
    metric: values.metric,
  };
  if (!o.index) {
    for (const f of ['ef', 'R', 'L', 'alpha', 'passes', 'bits', 'seed']) if (values[f] !== undefined) throw new UsageError(`--${f} is an index option: it does not go with --no-index`);
  }
  if (values.dataset !== undefined) {
    if (values.dataset !== 'sample') throw new UsageError(`unknown --dataset "${values.dataset}" (the package ships "sample"; for other data give --base and --queries)`);
    for (const f of ['base', 'queries', 'groundtruth']) if (values[f] !== undefined) throw new UsageError(`--${f} does not go with --dataset`);
    if (o.metric !== undefined && o.metric !== SAMPLE.metric) throw new UsageError(`the sample is ${SAMPLE.metric}; --metric ${o.metric} does not apply to it`);
    o.dataset = 'sample';
    o.metric = SAMPLE.metric;
  } else {
    if (values.base === undefined) throw new UsageError('missing --base FILE (or --dataset sample)');
    if (values.queries === undefined) throw new UsageError('missing --queries FILE');
    if (values.groundtruth !== undefined && o.n !== null) throw new UsageError('--groundtruth covers the whole base: it does not go with --n');
    o.dataset = basename(values.base);
    o.base = values.base;
    o.queries = values.queries;
    o.groundtruth = values.groundtruth;
    o.metric ??= 'l2';
  }
  if (!METRICS.includes(o.metric)) throw new UsageError(`unknown --metric "${o.metric}" (expected one of ${METRICS.join(', ')})`);
  return o;
}

// ---- data -------------------------------------------------------------------------------------

function floats(v, path) {
  if (v.data instanceof Float32Array) return v.data;
  if (v.data instanceof Uint8Array) return Float32Array.from(v.data);
  throw coded('HV_INVALID_ARGUMENT', `${path}: vectors must be .fvecs, .f16vecs or .bvecs, not .ivecs`);
}

/** The files behind --dataset sample: the shipped ones, or in a checkout data/sample's prefix. */
function sampleFiles() {
  const shipped = join(SAMPLE.dir, 'base.f16vecs');
  if (existsSync(shipped)) {
    return { base: shipped, queries: join(SAMPLE.dir, 'queries.fvecs'), groundtruth: join(SAMPLE.dir, 'groundtruth.ivecs'), n: null, nq: null };
  }
  if (existsSync(join(SAMPLE.checkout, 'base.f16vecs'))) {
    // a checkout before `npm pack`: the same rows, the ground truth computed
    return { base: join(SAMPLE.checkout, 'base.f16vecs'), queries: join(SAMPLE.checkout, 'queries.fvecs'), groundtruth: undefined, n: SAMPLE.n, nq: SAMPLE.nq };
  }
  throw coded('HV_IO', `the sample is missing: ${SAMPLE.dir} holds no base.f16vecs (a package packed without scripts/prepack.mjs?)`);
}

/** `{ base, n, queries, nq, dim, gt (nq × gtWidth ids), gtWidth, groundTruth }`. */
export function loadData(o, log = () => {}) {
  let files = { base: o.base, queries: o.queries, groundtruth: o.groundtruth, n: null, nq: null };
  if (o.dataset === 'sample' && o.base === undefined) files = sampleFiles();
  const b = readVecs(files.base);
  const q = readVecs(files.queries);
  const base = floats(b, files.base);
  const queries = floats(q, files.queries);
  if (b.dim !== q.dim) throw coded('HV_DIM_MISMATCH', `${files.queries} has dimension ${q.dim}, ${files.base} has ${b.dim}`);
  const capN = Math.min(o.n ?? Infinity, files.n ?? Infinity);
  const capQ = Math.min(o.nq ?? Infinity, files.nq ?? Infinity);
  const n = Math.min(b.n, capN);
  const nq = Math.min(q.n, capQ);
  if (n === 0 || nq === 0) throw coded('HV_INVALID_ARGUMENT', `no vectors: ${n} base rows, ${nq} queries`);
  if (o.k > n) throw coded('HV_INVALID_ARGUMENT', `--k ${o.k} exceeds the ${n} base rows`);
  const dim = b.dim;
  const data = { base: base.subarray(0, n * dim), n, queries: queries.subarray(0, nq * dim), nq, dim };
  // the ground truth file applies to the whole base only
  if (files.groundtruth !== undefined && n === b.n) {
    const g = readVecs(files.groundtruth);
    if (!(g.data instanceof Int32Array)) throw coded('HV_INVALID_ARGUMENT', `${files.groundtruth}: ground truth must be an .ivecs file`);
    if (g.n < nq) throw coded('HV_INVALID_ARGUMENT', `${files.groundtruth} has ${g.n} rows for ${nq} queries`);
    if (g.dim < o.k) throw coded('HV_INVALID_ARGUMENT', `${files.groundtruth} has ${g.dim} neighbours per query, fewer than --k ${o.k}`);
    for (let i = 0; i < nq * g.dim; i++) {
      if (g.data[i] < 0 || g.data[i] >= n) throw coded('HV_CORRUPT', `${files.groundtruth}: id ${g.data[i]} in row ${Math.floor(i / g.dim)} is not a row of the ${n} base vectors`);
    }
    return { ...data, gt: g.data, gtWidth: g.dim, groundTruth: 'file' };
  }
  log(`computing the exact ground truth (${n} × ${nq} × ${dim}, float64)`);
  const { ids, width } = exactTopK(data.base, n, data.queries, nq, dim, o.metric, o.k);
  return { ...data, gt: ids, gtWidth: width, groundTruth: 'exact-f64' };
}

// ---- measurement ------------------------------------------------------------------------------

const now = () => performance.now();
const round = (x, d) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : null);

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/** Mean and min recall@k of `hits[q]` (arrays of `{ id }`) against the ground truth. */
function recallOf(hits, data, k) {
  let sum = 0;
  let min = 1;
  for (let q = 0; q < data.nq; q++) {
    const truth = new Set(data.gt.subarray(q * data.gtWidth, q * data.gtWidth + k));
    let found = 0;
    for (const h of hits[q].slice(0, k)) if (truth.has(h.id)) found++;
    const r = found / k;
    sum += r;
    if (r < min) min = r;
  }
  return { mean: sum / data.nq, min };
}

/** Runs `f(i)` for at least `seconds` (at least one call), timing each call. */
async function timed(f, seconds) {
  const lat = [];
  const start = now();
  const end = start + seconds * 1000;
  let i = 0;
  do {
    const t0 = now();
    await f(i++);
    lat.push(now() - t0);
  } while (now() < end);
  const elapsed = (now() - start) / 1000;
  lat.sort((a, b) => a - b);
  return { calls: lat.length, elapsed, p50: percentile(lat, 0.5), p99: percentile(lat, 0.99) };
}

/** One measured point: recall over every query, then single-query and batch loops. */
async function point(col, data, o, search) {
  const rows = Array.from({ length: data.nq }, (_, q) => data.queries.subarray(q * data.dim, (q + 1) * data.dim));
  const hits = rows.map((r) => col.searchSync(r, { ...search, k: o.k, includeMetadata: false }));
  const recall = recallOf(hits, data, o.k);
  for (let i = 0; i < o.warmup; i++) col.searchSync(rows[i % data.nq], { ...search, k: o.k, includeMetadata: false });
  const single = await timed((i) => col.searchSync(rows[i % data.nq], { ...search, k: o.k, includeMetadata: false }), o.seconds);
  const B = Math.min(o.batch, data.nq);
  const calls = Math.ceil(data.nq / B);
  const batchOf = (c) => data.queries.subarray(c * B * data.dim, Math.min(data.nq, (c + 1) * B) * data.dim);
  const sizes = Array.from({ length: calls }, (_, c) => Math.min(data.nq, (c + 1) * B) - c * B);
  await col.searchBatch(batchOf(0), { ...search, k: o.k, includeMetadata: false });
  let queries = 0;
  const batch = await timed(async (i) => {
    await col.searchBatch(batchOf(i % calls), { ...search, k: o.k, includeMetadata: false });
    queries += sizes[i % calls];
  }, o.seconds);
  return { recall, single: { ...single, qps: single.calls / single.elapsed }, batch: { ...batch, qps: queries / batch.elapsed, size: B, queries } };
}

/** Progress on stderr when it is a terminal: cli-progress's bar when installed, else plain lines. */
async function progress(enabled) {
  if (!enabled) return { step() {}, done() {} };
  const mod = await import('cli-progress').catch(() => null);
  const cliProgress = mod?.default ?? mod;
  if (cliProgress && cliProgress.SingleBar) {
    const bar = new cliProgress.SingleBar({ format: 'horosvec bench [{bar}] {value}/{total} {step}', stream: process.stderr, hideCursor: true, clearOnComplete: true, barsize: 30 }, cliProgress.Presets.shades_classic);
    let started = false;
    return {
      step(i, total, step) {
        if (!started) bar.start(total, 0, { step }), (started = true);
        bar.update(i, { step });
      },
      done: () => started && bar.stop(),
    };
  }
  return { step: (i, total, step) => process.stderr.write(`horosvec bench: [${i + 1}/${total}] ${step}\n`), done() {} };
}

// ---- run --------------------------------------------------------------------------------------

export async function bench(o, lib) {
  const bar = await progress(process.stderr.isTTY === true);
  const total = 3 + (o.index ? 1 + o.efs.length : 0);
  let stepNo = 0;
  const step = (s) => bar.step(stepNo++, total, s);
  step('loading the vectors');
  const data = loadData(o, step);
  const { Collection, backend, kernel, version } = lib;
  const col = Collection.create({ dim: data.dim, metric: o.metric });
  step(`adding ${data.n} vectors`);
  const t0 = now();
  for (let s = 0; s < data.n; s += ADD_CHUNK) {
    const e = Math.min(data.n, s + ADD_CHUNK);
    await col.add(Array.from({ length: e - s }, (_, i) => s + i), data.base.subarray(s * data.dim, e * data.dim));
  }
  const addS = (now() - t0) / 1000;
  const st = col.stats();
  const common = {
    tool: 'horosvec bench', engine: 'horosvec', engine_version: version, backend, kernel, threads: st.threads,
    dataset: o.dataset, n: data.n, nq: data.nq, dim: data.dim, metric: o.metric, k: o.k, ground_truth: data.groundTruth,
  };
  const env = () => ({ node: process.version, platform: process.platform, arch: process.arch, cpu: os.cpus()[0]?.model ?? null, cores: os.cpus().length, date: new Date().toISOString() });
  const records = [];
  const emit = (mode, params, build, p) => {
    const base = { ...common, mode, params, ...build };
    const m = (r, t, batch, unit) => ({ recall_mean: round(r.mean, 6), recall_min: round(r.min, 6), qps: round(t.qps, 2), p50_ms: round(t.p50, 4), p99_ms: round(t.p99, 4), latency_unit: unit, batch, timed_calls: t.calls });
    const recs = [{ ...base, ...m(p.recall, p.single, 1, 'query'), ...env() }, { ...base, mode: `${mode}-batch`, ...m(p.recall, p.batch, p.batch.size, 'call'), ...env() }];
    records.push(...recs);
    if (o.json) for (const r of recs) process.stdout.write(`${JSON.stringify(r)}\n`);
  };
  step('exact scan');
  const exact = await point(col, data, o, { exact: true });
  emit('exact', {}, { build_s: round(addS, 4), add_s: round(addS, 4), index_s: null }, exact);
  const points = [];
  let indexS = null;
  let mode = null;
  if (o.index) {
    step('building the index');
    const t1 = now();
    const opts = { R: o.R, L: o.L, alpha: o.alpha, passes: o.passes, seed: o.seed, ...(o.bits === undefined ? {} : { bits: o.bits }) };
    await col.buildIndex(opts);
    indexS = (now() - t1) / 1000;
    mode = col.stats().mode;
    const bits = /rabitq(\d+)/.exec(mode)?.[1];
    for (const ef of o.efs) {
      step(`index at ef ${ef}`);
      const p = await point(col, data, o, { ef, exact: false });
      points.push({ ef, p });
      emit(mode, { R: o.R, L: o.L, alpha: o.alpha, passes: o.passes, bits: bits === undefined ? null : Number(bits), seed: o.seed, ef }, { build_s: round(addS + indexS, 4), add_s: round(addS, 4), index_s: round(indexS, 4) }, p);
    }
  }
  bar.done();
  await col.close();
  if (!o.json) process.stdout.write(summary(o, data, common, { addS, indexS, mode, exact, points }).join('\n') + '\n');
  return records;
}

function summary(o, data, c, r) {
  const f = (x, d) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(d));
  const row = (label, p) =>
    `  ${label.padEnd(8)}${f(p.recall.mean, 4).padStart(9)}  ${f(p.recall.min, 2).padStart(5)}  ${f(p.single.qps, 1).padStart(10)}  ${f(p.single.p50, 3).padStart(8)}  ${f(p.single.p99, 3).padStart(8)}  ${f(p.batch.qps, 1).padStart(10)}`;
  const lines = [
    `horosvec ${c.engine_version} bench: ${c.dataset}`,
    `  n ${data.n}  dim ${data.dim}  metric ${o.metric}  k ${o.k}  queries ${data.nq}  ground truth ${data.groundTruth === 'file' ? 'from the file' : 'computed exactly (float64)'}`,
    `  backend ${c.backend}  kernel ${c.kernel}  threads ${c.threads}`,
    `  add            ${r.addS.toFixed(3)} s`,
  ];
  if (r.indexS !== null) lines.push(`  buildIndex     ${r.indexS.toFixed(3)} s  (${r.mode}: R ${o.R}  L ${o.L}  alpha ${o.alpha}  passes ${o.passes}  seed ${o.seed})`);
  lines.push(
    `  single query: one at a time, ≥ ${o.seconds} s per point after ${o.warmup} warm-up searches; batch: ${Math.min(o.batch, data.nq)} queries per searchBatch call`,
    `  ${'search'.padEnd(8)}${`recall@${o.k}`.padStart(9)}  ${'min'.padStart(5)}  ${'QPS'.padStart(10)}  ${'p50 ms'.padStart(8)}  ${'p99 ms'.padStart(8)}  ${'batch QPS'.padStart(10)}`,
    row('exact', r.exact),
  );
  for (const { ef, p } of r.points) lines.push(row(`ef ${ef}`, p));
  return lines;
}

/** `horosvec bench ARGS`: 0, or throws (a UsageError for a bad command line). */
export async function runBench(argv, loadLib) {
  const o = parseBench(argv);
  if (o.help) {
    process.stdout.write(HELP);
    return 0;
  }
  await bench(o, await loadLib());
  return 0;
}

/** Prints `e` as the tool does; the exit code. */
export const reportError = (e) => printError(e, SHORT_USAGE);
