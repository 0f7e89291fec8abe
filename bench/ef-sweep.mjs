#!/usr/bin/env node
// One engine, one dataset, one process: build a collection from a vector file and measure recall,
// single-query and batch throughput and latency: exact search, the Vamana + RaBitQ index over an
// ef sweep, or the hnswlib-node competitor on the same data and protocol (see --help). Records
// (--json) go to bench-results/ef-sweep/<rev>.jsonl; scripts/compare.mjs tables them.
//
//   node bench/ef-sweep.mjs --dataset minilm384 --index vamana --json >> bench-results/ef-sweep/<rev>.jsonl
//
// A front over the matrix's pieces (`npm run bench`, bench/run.mjs, is the other entry): the
// engines and their builds come from bench/lib/engines.mjs, the timing loop from
// bench/lib/protocol.mjs, the vector files from bench/datasets.mjs, ground truth and recall from
// bench/lib/groundtruth.mjs, provenance from bench/lib/provenance.mjs. What stays here: the
// command line, the order of the measurements, the records and the human summaries.
// The package's own `horosvec bench` (npm/cli/bench.js) is the installed, horosvec-only
// version; this one adds the competitor and the repository's datasets.
//
// Exit codes: 0 success, 1 data / runtime error (`horosvec: HV_CODE: message` on stderr),
// 2 bad command line (one-line error and the usage on stderr).

import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { efList, intArg, numArg } from '../npm/cli/args.js';
import { coded, parseArgsMessage, printError, UsageError } from '../npm/cli/errors.js';
import { DATASETS, readVectorFiles } from './datasets.mjs';
import { ENGINES as ENGINE_TABLE } from './lib/engines.mjs';
import { groundTruthFor, recallOfHits } from './lib/groundtruth.mjs';
import { timeLoop, cpuSeconds, settledRss } from './lib/protocol.mjs';
import { binaryInfo, provenance } from './lib/provenance.mjs';

const METRICS = ['l2', 'cosine', 'ip', 'l1'];
const ENGINES = ['horosvec', 'hnswlib'];
const ADD_CHUNK = 10_000;
const DEFAULT_EFS = [10, 16, 24, 32, 48, 64, 96, 128, 200, 300];
const INDEX_DEFAULTS = { R: 32, L: 64, alpha: 1.1, passes: 1, bits: 'auto', seed: 42 };
const HNSW_DEFAULTS = { M: 16, efConstruction: 200, seed: 42 };

const USAGE =
  'usage: node bench/ef-sweep.mjs (--dataset sample|minilm384|glove50|sift128 | --base FILE --queries FILE [--gt FILE] --metric l2|cosine|ip|l1)\n' +
  '                      [--k 10] [--n N] [--nq NQ] [--batch 64] [--warmup 50] [--seconds 3] [--json]\n' +
  '                      [--index vamana [--R 32] [--L 64] [--alpha 1.1] [--passes 1] [--bits auto] [--seed 42] [--ef LIST]]\n' +
  '                      [--engine hnswlib [--M 16] [--efConstruction 200] [--seed 42] [--ef LIST]]';

export const SHORT_USAGE =
  'usage: node bench/ef-sweep.mjs (--dataset NAME | --base FILE --queries FILE [--gt FILE] --metric M) [options]  (see node bench/ef-sweep.mjs --help)';

export const HELP = `bench/ef-sweep.mjs — one engine's recall and throughput on one dataset

${USAGE}

  Loads a base and a query file (.fvecs, .f16vecs, .bvecs; ground truth .ivecs), builds an
  in-memory collection (ids = base row numbers) and measures search.

  Exact search (the default, no --index):
    * recall@k against the ground truth (one sequential pass of searchSync over all queries),
      plus a tie-tolerant recall when <gt>_dist.fvecs sits next to the ground truth file;
    * single-query throughput and p50/p99 latency: searchSync one query at a time, after a
      warm-up, cycling over the queries for at least --seconds;
    * batch throughput: searchBatch with --batch queries per call, for at least --seconds.

  Approximate index (--index vamana) and the hnswlib competitor (--engine hnswlib): the build
  (add, then buildIndex; or hnswlib's addPoint per row) is timed once, then one measured point per
  ef of the --ef list: recall@k (mean, min) over all queries one after another, a warm-up, then
  single-query throughput and p50/p99 latency over at least --seconds (searchSync, or searchKnn
  with the queries converted to number[] beforehand). Batch throughput per ef only when --batch
  is given with --index (not for hnswlib, which has no batch search).

  --dataset NAME   sample (data/sample, shipped), or minilm384 | glove50 | sift128 (the
                   folders of bench/datasets.mjs); --base/--queries/--gt/--metric override its files
  --base FILE      base vectors
  --queries FILE   query vectors (row i answers to row i of the ground truth)
  --gt FILE        ground truth (.ivecs, best first); without it, or with --n, the ground truth
                   is computed by a float64 brute force in JS (slow for a large n)
  --metric M       l2 | cosine | ip | l1 (required with --base; dataset default otherwise)
  --k K            neighbours per query (default 10)
  --n N            use only the first N base rows (the ground truth is then recomputed)
  --nq NQ          use only the first NQ queries
  --batch B        queries per searchBatch call (default 64)
  --warmup W       single-query warm-up searches, not timed (default 50; per ef point)
  --seconds S      minimum timed duration of each throughput loop (default 3)
  --json           print one JSON line per measured point instead of a summary

  --engine E       horosvec (default) | hnswlib (hnswlib-node, a dev dependency of the
                   repository; metrics l2, cosine, ip)
  --index vamana   build horosvec's Vamana graph + RaBitQ index (buildIndex) after adding
                   (vamana-f16: the same over a collection of vectors: 'f16', half-precision rows)
  --R, --L, --alpha, --passes, --bits
                   buildIndex options (defaults ${INDEX_DEFAULTS.R}, ${INDEX_DEFAULTS.L}, ${INDEX_DEFAULTS.alpha}, ${INDEX_DEFAULTS.passes}, ${INDEX_DEFAULTS.bits})
  --M, --efConstruction
                   hnswlib's initIndex options (defaults ${HNSW_DEFAULTS.M}, ${HNSW_DEFAULTS.efConstruction})
  --seed S         build seed of either index (default ${INDEX_DEFAULTS.seed})
  --ef LIST        comma-separated search list sizes, one measured point each
                   (default ${DEFAULT_EFS.join(',')}; ignored for exact search)

  Scan rate (exact only) = n × dim × 4 bytes × QPS / 1e9 (GB/s). bytes_per_vector: exact, the
  stored vectors; vamana, what the graph walk touches (codes, factors, adjacency; the float
  vectors used by the rerank come on top); hnswlib, an estimate from hnswlib's layout (vectors,
  links, label, lock, label map), next to the RSS growth measured around the build. qps_cpu:
  searches per CPU second of the process (less sensitive than qps to other jobs on the machine),
  build_cpu_s likewise for the build. A progress
  bar is drawn on stderr when it is a terminal (never with --json).
`;

export { UsageError };

// ---- argument parsing -----------------------------------------------------------------------

const INDEX_FLAGS = ['R', 'L', 'alpha', 'passes', 'bits'];
const HNSW_FLAGS = ['M', 'efConstruction'];
const STRING_FLAGS = ['dataset', 'base', 'queries', 'gt', 'metric', 'k', 'n', 'nq', 'batch', 'warmup', 'seconds', 'engine', 'index', ...INDEX_FLAGS, 'seed', ...HNSW_FLAGS, 'ef'];

function parseBench(args) {
  let values;
  try {
    const options = { ...Object.fromEntries(STRING_FLAGS.map((f) => [f, { type: 'string' }])), json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };
    ({ values } = parseArgs({ args, strict: true, allowPositionals: false, options }));
  } catch (e) {
    throw new UsageError(parseArgsMessage(e));
  }
  if (values.help) return { help: true };
  const opts = {
    k: intArg(values, 'k', 10, 1),
    n: intArg(values, 'n', null, 1),
    nq: intArg(values, 'nq', null, 1),
    batch: intArg(values, 'batch', 64, 1, 65536),
    batchGiven: values.batch !== undefined,
    warmup: intArg(values, 'warmup', 50, 0),
    seconds: numArg(values, 'seconds', 3, 0, 86400),
    json: values.json === true,
    base: values.base,
    queries: values.queries,
    gt: values.gt,
    metric: values.metric,
    dataset: values.dataset,
    engine: values.engine ?? 'horosvec',
    index: values.index ?? null,
    efs: efList(values.ef, DEFAULT_EFS),
    seed: intArg(values, 'seed', INDEX_DEFAULTS.seed, 0, 0xffff_ffff),
  };
  if (!ENGINES.includes(opts.engine)) throw new UsageError(`unknown --engine "${opts.engine}" (expected one of ${ENGINES.join(', ')})`);
  if (opts.index !== null && opts.index !== 'vamana' && opts.index !== 'vamana-f16') throw new UsageError(`unknown --index "${opts.index}" (expected vamana or vamana-f16)`);
  if (opts.engine === 'hnswlib') {
    if (opts.index !== null) throw new UsageError('--index applies to --engine horosvec; hnswlib always builds its HNSW graph');
    for (const f of INDEX_FLAGS) if (values[f] !== undefined) throw new UsageError(`--${f} applies to --index vamana, not --engine hnswlib`);
    if (opts.batchGiven) throw new UsageError('--batch is not available with --engine hnswlib (hnswlib-node has no batch search)');
    opts.M = intArg(values, 'M', HNSW_DEFAULTS.M, 2, 2048);
    opts.efConstruction = intArg(values, 'efConstruction', HNSW_DEFAULTS.efConstruction, 1, 100_000);
  } else {
    for (const f of HNSW_FLAGS) if (values[f] !== undefined) throw new UsageError(`--${f} applies to --engine hnswlib`);
    if (opts.index === null) {
      for (const f of [...INDEX_FLAGS, 'seed']) if (values[f] !== undefined) throw new UsageError(`--${f} applies to --index vamana`);
    }
    opts.R = intArg(values, 'R', INDEX_DEFAULTS.R, 1, 4096);
    opts.L = intArg(values, 'L', INDEX_DEFAULTS.L, 1, 100_000);
    opts.alpha = numArg(values, 'alpha', INDEX_DEFAULTS.alpha, 1, 4);
    opts.passes = intArg(values, 'passes', INDEX_DEFAULTS.passes, 1, 8);
    opts.bits = values.bits === 'auto' ? undefined : intArg(values, 'bits', undefined, 1, 8);
  }
  if (opts.dataset !== undefined) {
    const ds = DATASETS[opts.dataset];
    if (ds === undefined) throw new UsageError(`unknown --dataset "${opts.dataset}" (expected one of ${Object.keys(DATASETS).join(', ')})`);
    if (!existsSync(ds.dir)) throw coded('HV_IO', `dataset "${opts.dataset}" not found: ${ds.dir} is missing`);
    opts.base ??= join(ds.dir, ds.base);
    opts.queries ??= join(ds.dir, ds.queries);
    if (opts.gt === undefined && values.base === undefined) opts.gt = join(ds.dir, ds.gt);
    opts.metric ??= ds.metric;
  } else {
    if (opts.base === undefined) throw new UsageError('missing --base FILE (or --dataset NAME)');
    if (opts.queries === undefined) throw new UsageError('missing --queries FILE');
    if (opts.metric === undefined) throw new UsageError('missing --metric (l2, cosine, ip or l1) for --base');
  }
  if (!METRICS.includes(opts.metric)) throw new UsageError(`unknown --metric "${opts.metric}" (expected one of ${METRICS.join(', ')})`);
  if (opts.engine === 'hnswlib' && ENGINE_TABLE.hnswlib.unsupported(opts.metric) !== null) throw new UsageError(`--engine hnswlib does not support --metric ${opts.metric} (hnswlib has l2, cosine and ip)`);
  return opts;
}

// ---- helpers ----------------------------------------------------------------------------------

function round(x, d) {
  if (!Number.isFinite(x)) return null;
  const m = 10 ** d;
  return Math.round(x * m) / m;
}

const signed = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(0)}`;

/** Progress bars on a TTY stderr (`bar(label, total, unit)`, cli-progress); no-ops otherwise. */
async function progress(enabled) {
  const none = { update() {}, stop() {} };
  let cliProgress = null;
  if (enabled) cliProgress = (await import('cli-progress').catch(() => null))?.default ?? null;
  if (cliProgress === null) return () => none;
  return (label, total, unit) => {
    const format = `${label.padEnd(14)} [{bar}] {percentage}% | {value}/{total} ${unit} | {duration_formatted}`;
    const bar = new cliProgress.SingleBar({ format, stream: process.stderr, hideCursor: true, clearOnComplete: true, barsize: 30 }, cliProgress.Presets.shades_classic);
    bar.start(total, 0);
    return bar;
  };
}

/** Fields describing the run's machine and revision, common to every record. */
function envFields() {
  const { git_rev, git_dirty, date } = provenance();
  return { storage: 'memory', git_rev, git_dirty, date, cpu: os.cpus()[0]?.model ?? null, cores: os.cpus().length, node: process.version, load_avg_1m: round(os.loadavg()[0], 2) };
}

// ---- data -------------------------------------------------------------------------------------

/** The vectors (bench/datasets.mjs), the queries as rows (`qrows`) and the ground truth (file or brute force). */
function loadData(opts, bar) {
  const mb = (p) => Math.max(1, Math.round((statSync(p, { throwIfNoEntry: false })?.size ?? 0) / 1e6));
  const b = bar('loading', mb(opts.base) + mb(opts.queries), 'MB');
  let done = 0;
  const data = readVectorFiles(opts.base, opts.queries, { n: opts.n, nq: opts.nq, onRead: (p) => b.update((done += mb(p))) });
  b.stop();
  if (opts.k > data.n) throw coded('HV_INVALID_ARGUMENT', `--k ${opts.k} exceeds the ${data.n} base rows`);
  // a prefix (--n) invalidates the file's ground truth
  const gtPath = opts.n === null ? opts.gt : undefined;
  const why = opts.n !== null && opts.gt !== undefined ? `--n ${data.n} makes ${basename(opts.gt)} invalid` : 'no --gt given';
  const { gt, note, source } = groundTruthFor(data, { gtPath, k: opts.k, metric: opts.metric, why, bar });
  const qrows = Array.from({ length: data.nq }, (_, q) => data.queries.subarray(q * data.dim, (q + 1) * data.dim));
  return { ...data, qrows, gt, gtNote: note, groundTruth: source, dataset: `${basename(dirname(resolve(opts.base)))}/${basename(opts.base)}` };
}

// ---- measurement ------------------------------------------------------------------------------

/** Recall over every query, one after another (searchHits). */
function recallPass(h, data, k, ef, bar, label) {
  const b = bar(label, data.nq, 'queries');
  const hits = data.qrows.map((q, i) => {
    if ((i & 15) === 15 || i === data.nq - 1) b.update(i + 1);
    return h.searchHits(q, k, ef);
  });
  b.stop();
  return recallOfHits(hits, k, data.gt, data.n);
}

/** Single-query throughput: warm-up, then searchHits cycling over the queries for ≥ --seconds. */
function timedSingle(h, data, opts, ef) {
  return timeLoop((i) => h.searchHits(data.qrows[i], opts.k, ef), { nq: data.nq, seconds: opts.seconds, warmup: opts.warmup, cpu: true });
}

/**
 * Batch throughput: searchBatch calls of `B` consecutive queries, cycling (every call full size),
 * after one untimed call; the first answer to each query feeds the batch recall (the queries no
 * timed call reached are answered afterwards). `{ t (per call), qps (queries/s), recall }`.
 */
async function timedBatch(h, data, opts, ef, bar) {
  const { nq, dim, qrows } = data;
  const B = opts.batch;
  const ext = new Float32Array((nq + B) * dim);
  for (let r = 0; r < nq + B; r++) ext.set(qrows[r % nq], r * dim);
  const hits = new Array(nq);
  let unseen = nq;
  const record = (offset, res) => {
    for (let j = 0; j < res.length; j++) {
      const q = (offset + j) % nq;
      if (hits[q] === undefined) (hits[q] = res[j]), unseen--;
    }
  };
  const call = (offset) => h.searchBatch(ext.subarray(offset * dim, (offset + B) * dim), opts.k, ef);
  record(0, await call(0));
  const t = await timeLoop(
    async (i) => {
      const offset = ((i + 1) * B) % nq;
      const res = await call(offset);
      if (unseen > 0) record(offset, res);
    },
    { seconds: opts.seconds },
  );
  if (unseen > 0) {
    const b = bar('batch recall', nq, 'queries');
    for (let s = 0; s < nq; s += B) {
      if (hits.slice(s, s + B).includes(undefined)) record(s, await call(s));
      b.update(nq - unseen);
    }
    b.stop();
  }
  return { t, qps: t.qps * B, recall: recallOfHits(hits, opts.k, data.gt, data.n) };
}

// ---- bench ------------------------------------------------------------------------------------

const HNSW_KERNEL_DETAIL = 'hnswlib compiled by node-gyp with its default flags (no -march): SSE distance kernels';
const HNSW_LOAD_HELP = '--engine hnswlib needs the hnswlib-node package (a dev dependency of the horosvec repository; run npm install at its root)';

/** Loads the engine and the data, builds, measures every point, prints the records or a summary. */
async function bench(opts) {
  const showBars = Boolean(process.stderr.isTTY) && !opts.json;
  const bar = await progress(showBars);
  const engine = ENGINE_TABLE[opts.engine];
  const info = await engine.load().catch((e) => {
    throw opts.engine === 'hnswlib' ? coded('HV_IO', `${HNSW_LOAD_HELP}: ${String(e?.message).split('\n')[0]}`) : e;
  });
  const data = loadData(opts, bar);
  const run = await build(engine, data, opts, bar, showBars);
  try {
    const recordsOf = recordMaker(opts, data, engine, info, run);
    const points = [];
    for (const ef of run.exact ? [undefined] : opts.efs) {
      const p = await measurePoint(run.h, data, opts, ef, run.exact, bar);
      p.records = recordsOf(p);
      if (opts.json) process.stdout.write(p.records.map((r) => `${JSON.stringify(r)}\n`).join(''));
      points.push(p);
    }
    if (!opts.json) process.stdout.write(`${summary(opts, data, info, run, points).join('\n')}\n`);
  } finally {
    await run.h.close();
  }
}

/**
 * The engine's build (bench/lib/engines.mjs: horosvec adds in chunks of ADD_CHUNK rows, then
 * buildIndex; hnswlib addPoint per row), timed by the engine; the process's CPU seconds over it
 * and, for an index, the RSS it adds (after a GC on both sides).
 */
async function build(engine, data, opts, bar, showBars) {
  const hnsw = opts.engine === 'hnswlib';
  const mode = hnsw ? 'hnsw' : (opts.index ?? 'exact');
  const exact = mode === 'exact';
  const params = hnsw ? { M: opts.M, efConstruction: opts.efConstruction, seed: opts.seed } : exact ? {} : { R: opts.R, L: opts.L, alpha: opts.alpha, passes: opts.passes, bits: opts.bits, seed: opts.seed };
  let pb = null;
  const onProgress = (stage, done, total) => {
    if (pb?.stage !== stage) {
      pb?.stop();
      pb = Object.assign(bar(stage === 'add' ? (hnsw ? 'addPoint' : 'adding') : 'buildIndex', total, stage === 'add' ? 'vectors' : 'steps'), { stage });
    }
    pb.update(done);
  };
  const rss0 = exact ? 0 : settledRss();
  const cpu0 = process.cpuUsage();
  const h = await engine.build(data, opts.metric, mode, params, { chunk: ADD_CHUNK, rowByRow: true, ...(showBars ? { onProgress } : {}) }).catch((e) => {
    // name the file and the base row
    const m = /^(HV_[A-Z_]+): vector (\d+) (.*)$/s.exec(e?.message ?? '');
    throw m ? coded(m[1], `${opts.base}: base row ${m[2]} ${m[3]}`) : e;
  });
  const buildCpuS = cpuSeconds(cpu0);
  pb?.stop();
  const rssDelta = exact ? 0 : settledRss() - rss0;
  // bits left to the library's by-dimension default: record the width it chose (in the mode)
  const chosen = /rabitq(\d)$/.exec(h.stats?.mode ?? '');
  if (!hnsw && !exact && params.bits === undefined && chosen !== null) params.bits = Number(chosen[1]);
  const addS = hnsw ? h.build_s : h.add_s;
  return { h, hnsw, exact, params, addS, indexS: hnsw ? null : h.index_s, buildS: addS + (h.index_s ?? 0), buildCpuS, rssDelta };
}

/** One measured point: single-query recall and timing, and the batch when asked for (always for exact search). */
async function measurePoint(h, data, opts, ef, exact, bar) {
  // exact: timing, then the recall pass; an index: the recall pass (which also converts hnswlib's queries), then timing
  let single = exact ? await timedSingle(h, data, opts, ef) : null;
  const recall = recallPass(h, data, opts.k, ef, bar, exact ? 'recall pass' : `recall ef ${ef}`);
  single ??= await timedSingle(h, data, opts, ef);
  const batch = exact || opts.batchGiven ? await timedBatch(h, data, opts, ef, bar) : null;
  return { ef, recall, single, batch };
}

/**
 * `(point) → records`: the single-query record, then the batch record if measured. The fields are
 * those of the records in bench-results/ef-sweep/ (scripts/compare.mjs and bench/readme.mjs read them).
 */
function recordMaker(opts, data, engine, info, run) {
  const { h, hnsw, exact, params } = run;
  const { n, dim } = data;
  const st = h.stats ?? {};
  const backend = info.backend ?? engine.backend;
  const kernel = hnsw ? 'hnswlib-simd' : (h.kernel ?? info.kernel);
  const dataFields = { dataset: data.dataset, n, nq: data.nq, dim, metric: opts.metric, k: opts.k };
  const builds = { build_s: round(run.buildS, 4), add_s: round(run.addS, 4), index_s: run.indexS === null ? null : round(run.indexS, 4) };
  const r6 = (x) => round(x, 6);
  const measured = (recall, t, b, qps, cpu) => ({
    recall_mean: r6(recall.mean),
    recall_min: r6(recall.min),
    recall_tie_tolerant: recall.tie === null ? null : r6(recall.tie),
    qps: round(qps, 2),
    ...(cpu ? { qps_cpu: t.cpu_s > 0 ? round(t.calls / t.cpu_s, 2) : null } : {}),
    p50_ms: t.p50_ms,
    p99_ms: t.p99_ms,
    latency_unit: b === 1 ? 'query' : 'call',
    timed_searches: t.calls * b,
  });
  if (exact) {
    const head = { engine: 'horosvec', engine_version: info.version, backend, kernel, threads: st.threads, params: {}, ...dataFields, ...builds, ground_truth: data.groundTruth };
    return ({ recall, single, batch }) => {
      const env = { rss_mb: round(process.memoryUsage().rss / 1e6, 1), bytes_per_vector: st.vectorBytes / n, ...envFields() };
      const rec = (mode, b, r, t, qps) => ({ ...head, mode, batch: b, ...measured(r, t, b, qps, false), scan_gbps: round(scanGbps(n, dim, qps), 3), ...env });
      return [rec('exact', 1, recall, single, single.qps), rec('exact-batch', opts.batch, batch.recall, batch.t, batch.qps)];
    };
  }
  const head = {
    engine: opts.engine,
    engine_version: info.version,
    backend,
    mode: h.mode ?? 'hnsw',
    kernel,
    ...(hnsw ? { kernel_detail: HNSW_KERNEL_DETAIL } : {}),
    threads: h.threads,
    params,
    ...builds,
    build_cpu_s: round(run.buildCpuS, 3),
    ground_truth: data.groundTruth,
    ...(hnsw ? {} : binaryInfo(backend)),
  };
  const est = hnsw ? engine.layoutBytesPerVector(dim, opts.M) : null;
  const memory = {
    bytes_per_vector: hnsw ? est.total : st.indexBytesPerVector,
    ...(hnsw ? { bytes_per_vector_parts: est.parts } : { vector_bytes_per_vector: st.vectorBytes / n }),
    rss_build_delta_mb: round(run.rssDelta / 1e6, 1),
    rss_build_bytes_per_vector: round(run.rssDelta / n, 1),
  };
  const rec = (ef, mode, b, r, t, qps) => ({ ...head, mode, params: { ...params, ef }, ...dataFields, batch: b, ...measured(r, t, b, qps, b === 1), warmup: opts.warmup, ...memory, rss_mb: round(process.memoryUsage().rss / 1e6, 1), ...envFields() });
  return ({ ef, recall, single, batch }) => [rec(ef, head.mode, 1, recall, single, single.qps), ...(batch ? [rec(ef, `${head.mode}-batch`, opts.batch, batch.recall, batch.t, batch.qps)] : [])];
}

/** Scan rate of exact search: n × dim × 4 bytes per query, GB/s. */
const scanGbps = (n, dim, qps) => (n * dim * 4 * qps) / 1e9;

/** The human summary: exact search's two lines, or an index's recall–QPS table. */
function summary(opts, data, info, run, points) {
  const { k } = opts;
  const { n, dim } = data;
  const f = (x, d) => (x === null || x === undefined ? 'n/a' : x.toFixed(d));
  const [s, b] = points[0].records;
  const lines = [`${run.hnsw ? 'hnswlib-node' : 'horosvec'} ${info.version} bench: ${data.dataset}`, `  n ${n}  dim ${dim}  metric ${opts.metric}  k ${k}  queries ${data.nq}`];
  if (run.exact) {
    const { recall: r, batch } = points[0];
    const gb = (qps) => scanGbps(n, dim, qps).toFixed(2);
    return [
      ...lines,
      `  backend ${s.backend}  kernel ${s.kernel}  mode exact  threads ${s.threads}`,
      `  build          ${run.buildS.toFixed(3)} s`,
      `  ground truth   ${data.gtNote}`,
      `  ${`recall@${k}`.padEnd(15)}mean ${f(r.mean, 4)}  min ${f(r.min, 4)}  tie-tolerant ${f(r.tie, 4)}  (batch: mean ${f(batch.recall.mean, 4)})`,
      `  single query   ${s.qps.toFixed(1)} QPS  p50 ${s.p50_ms.toFixed(3)} ms  p99 ${s.p99_ms.toFixed(3)} ms  scan ${gb(s.qps)} GB/s  (${s.timed_searches} searches, warm-up ${opts.warmup})`,
      `  ${`batch of ${opts.batch}`.padEnd(15)}${b.qps.toFixed(1)} QPS  (${(b.qps / s.qps).toFixed(2)}× single)  per call p50 ${b.p50_ms.toFixed(3)} ms  p99 ${b.p99_ms.toFixed(3)} ms  scan ${gb(b.qps)} GB/s`,
      `  memory         rss ${s.rss_mb.toFixed(0)} MB (whole process, loaded files included)  ${s.bytes_per_vector} bytes/vector stored`,
    ];
  }
  const p = run.params;
  const last = points.at(-1).records[0];
  const memory = run.hnsw
    ? `≈ ${s.bytes_per_vector} bytes/vector by hnswlib's layout; rss ${signed(s.rss_build_delta_mb)} MB over the build (${s.rss_build_bytes_per_vector} bytes/vector)`
    : `${s.bytes_per_vector} bytes/vector walked (codes, factors, graph) + ${s.vector_bytes_per_vector} stored float32; rss ${last.rss_mb.toFixed(0)} MB, ${signed(s.rss_build_delta_mb)} MB over add + buildIndex`;
  lines.push(
    run.hnsw ? '  backend native  kernel hnswlib-simd (SSE, default node-gyp flags)  mode hnsw  threads 1' : `  backend ${s.backend}  kernel ${s.kernel}  mode ${s.mode}  threads ${s.threads}`,
    `  params         ${run.hnsw ? `M ${p.M}  efConstruction ${p.efConstruction}  seed ${p.seed}` : `R ${p.R}  L ${p.L}  alpha ${p.alpha}  passes ${p.passes}  bits ${p.bits}  seed ${p.seed}`}`,
    `  build          ${run.buildS.toFixed(3)} s ${run.hnsw ? '(addPoint per row, one thread)' : `(add ${run.addS.toFixed(3)} s + buildIndex ${run.indexS.toFixed(3)} s)`}`,
    `  ground truth   ${data.gtNote}`,
    `  memory         ${memory}`,
    `  single query, one at a time (warm-up ${opts.warmup}, ≥ ${opts.seconds} s per point; QPS/cpu-s: per CPU second of the process):`,
    `  ${'ef'.padStart(6)}  ${`recall@${k}`.padStart(9)}  ${'min'.padStart(6)}  ${'tie-tol'.padStart(7)}  ${'QPS'.padStart(9)}  ${'QPS/cpu-s'.padStart(9)}  ${'p50 ms'.padStart(8)}  ${'p99 ms'.padStart(8)}` +
      (opts.batchGiven ? `  ${`batch ${opts.batch} QPS`.padStart(14)}` : ''),
  );
  for (const { records: [r, rb] } of points) {
    lines.push(
      `  ${String(r.params.ef).padStart(6)}  ${f(r.recall_mean, 4).padStart(9)}  ${f(r.recall_min, 2).padStart(6)}  ${f(r.recall_tie_tolerant, 4).padStart(7)}` +
        `  ${f(r.qps, 1).padStart(9)}  ${f(r.qps_cpu, 1).padStart(9)}  ${f(r.p50_ms, 3).padStart(8)}  ${f(r.p99_ms, 3).padStart(8)}` +
        (rb ? `  ${f(rb.qps, 1).padStart(14)}` : ''),
    );
  }
  return lines;
}

// ---- entry point ----------------------------------------------------------------------------

/** `node bench/ef-sweep.mjs ARGS`: exit code 0, or throws (UsageError: exit 2). */
export async function runBench(argv) {
  const opts = parseBench(argv);
  if (opts.help) {
    process.stdout.write(HELP);
    return 0;
  }
  await bench(opts);
  return 0;
}

/** Prints `e` as the tool does (`horosvec: …`, the usage line after a usage error); the exit code. */
export const reportError = (e) => printError(e, SHORT_USAGE);

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runBench(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.exitCode = reportError(e);
    },
  );
}
