#!/usr/bin/env node
// One engine, one dataset, one process: build a collection from a vector file and measure recall,
// single-query and batch throughput and latency: exact search, the Vamana + RaBitQ index over an
// ef sweep, or the hnswlib-node competitor on the same data and protocol (see --help). Records
// (--json) go to bench-results/ef-sweep/<rev>.jsonl; scripts/compare.mjs tables them.
//
//   node bench/ef-sweep.mjs --dataset minilm384 --index vamana --json >> bench-results/ef-sweep/<rev>.jsonl
//
// `horosvec bench …` (npm/cli/horosvec.js, in a checkout of the repository) runs this file with the
// same arguments. The matrix of every engine (`npm run bench`, bench/run.mjs) is the other entry.
//
// Exit codes: 0 success, 1 data / runtime error (`horosvec: HV_CODE: message` on stderr),
// 2 bad command line (one-line error and the usage on stderr).

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { readVecs } from '../npm/cli/vecs.js';
import { DATASETS } from './datasets.mjs';
import { bruteForce, readGtDistances, recallOf } from './lib/groundtruth.mjs';
import { provenance } from './lib/provenance.mjs';

const PKG_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'npm');
const METRICS = ['l2', 'cosine', 'ip', 'l1'];
const ENGINES = ['horosvec', 'hnswlib'];
const ADD_CHUNK = 10_000;
const DEFAULT_EFS = [10, 16, 24, 32, 48, 64, 96, 128, 200, 300];
const INDEX_DEFAULTS = { R: 32, L: 64, alpha: 1.1, passes: 1, bits: 'auto', seed: 42 };
const HNSW_DEFAULTS = { M: 16, efConstruction: 200, seed: 42 };

const USAGE =
  'usage: horosvec bench (--dataset sample|minilm384|glove50|sift128 | --base FILE --queries FILE [--gt FILE] --metric l2|cosine|ip|l1)\n' +
  '                      [--k 10] [--n N] [--nq NQ] [--batch 64] [--warmup 50] [--seconds 3] [--json]\n' +
  '                      [--index vamana [--R 32] [--L 64] [--alpha 1.1] [--passes 1] [--bits auto] [--seed 42] [--ef LIST]]\n' +
  '                      [--engine hnswlib [--M 16] [--efConstruction 200] [--seed 42] [--ef LIST]]\n' +
  '       (in a checkout of the repository: horosvec bench … runs node bench/ef-sweep.mjs …)';

export const SHORT_USAGE =
  'usage: horosvec bench (--dataset NAME | --base FILE --queries FILE [--gt FILE] --metric M) [options]  (see horosvec bench --help)';

export const HELP = `horosvec bench (bench/ef-sweep.mjs) — one engine's recall and throughput on one dataset

${USAGE}

horosvec bench
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

/** A bad command line (exit code 2); `usage` marks it for the CLI front (npm/cli/horosvec.js). */
export class UsageError extends Error {
  usage = true;
}

function dataError(code, message) {
  const e = new Error(message);
  e.code = code;
  return e;
}

// ---- argument parsing -----------------------------------------------------------------------

function intArg(values, name, def, min, max = Number.MAX_SAFE_INTEGER) {
  const raw = values[name];
  if (raw === undefined) return def;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function numArg(values, name, def, min, max) {
  const raw = values[name];
  if (raw === undefined) return def;
  const x = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(x) || x < min || x > max) {
    throw new UsageError(`--${name} must be a number from ${min} to ${max}, got "${raw}"`);
  }
  return x;
}

function efListArg(raw) {
  if (raw === undefined) return DEFAULT_EFS.slice();
  const parts = raw.split(',').map((p) => p.trim());
  const out = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p) || Number(p) < 1 || Number(p) > 100_000) {
      throw new UsageError(`--ef must be a comma-separated list of integers from 1 to 100000, got "${raw}"`);
    }
    if (!out.includes(Number(p))) out.push(Number(p));
  }
  return out;
}

const INDEX_FLAGS = ['R', 'L', 'alpha', 'passes', 'bits'];
const HNSW_FLAGS = ['M', 'efConstruction'];

function parseBench(args) {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        dataset: { type: 'string' },
        base: { type: 'string' },
        queries: { type: 'string' },
        gt: { type: 'string' },
        metric: { type: 'string' },
        k: { type: 'string' },
        n: { type: 'string' },
        nq: { type: 'string' },
        batch: { type: 'string' },
        warmup: { type: 'string' },
        seconds: { type: 'string' },
        json: { type: 'boolean' },
        engine: { type: 'string' },
        index: { type: 'string' },
        R: { type: 'string' },
        L: { type: 'string' },
        alpha: { type: 'string' },
        passes: { type: 'string' },
        bits: { type: 'string' },
        seed: { type: 'string' },
        M: { type: 'string' },
        efConstruction: { type: 'string' },
        ef: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UsageError(cleanParseError(e));
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
    efs: efListArg(values.ef),
    seed: intArg(values, 'seed', INDEX_DEFAULTS.seed, 0, 0xffff_ffff),
  };
  if (!ENGINES.includes(opts.engine)) {
    throw new UsageError(`unknown --engine "${opts.engine}" (expected one of ${ENGINES.join(', ')})`);
  }
  if (opts.index !== null && opts.index !== 'vamana') {
    throw new UsageError(`unknown --index "${opts.index}" (expected vamana)`);
  }
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
    if (ds === undefined) {
      throw new UsageError(`unknown --dataset "${opts.dataset}" (expected one of ${Object.keys(DATASETS).join(', ')})`);
    }
    const dir = ds.dir;
    if (!existsSync(dir)) {
      throw dataError('HV_IO', `dataset "${opts.dataset}" not found: ${dir} is missing`);
    }
    opts.base ??= join(dir, ds.base);
    if (opts.queries === undefined) opts.queries = join(dir, ds.queries);
    if (opts.gt === undefined && values.base === undefined) opts.gt = join(dir, ds.gt);
    opts.metric ??= ds.metric;
  } else {
    if (opts.base === undefined) throw new UsageError('missing --base FILE (or --dataset NAME)');
    if (opts.queries === undefined) throw new UsageError('missing --queries FILE');
    if (opts.metric === undefined) throw new UsageError('missing --metric (l2, cosine, ip or l1) for --base');
  }
  if (!METRICS.includes(opts.metric)) {
    throw new UsageError(`unknown --metric "${opts.metric}" (expected one of ${METRICS.join(', ')})`);
  }
  if (opts.engine === 'hnswlib' && !HNSW_SPACES[opts.metric]) {
    throw new UsageError(`--engine hnswlib does not support --metric ${opts.metric} (hnswlib has l2, cosine and ip)`);
  }
  return opts;
}

/** horosvec metric → hnswlib space; hnswlib has no l1. */
const HNSW_SPACES = { l2: 'l2', cosine: 'cosine', ip: 'ip' };

function cleanParseError(e) {
  const msg = String(e && e.message).split('\n')[0];
  return msg.replace(/\. To specify a positional argument.*$/, '');
}

// ---- helpers ----------------------------------------------------------------------------------

function packageVersion() {
  return JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8')).version;
}

function fileSize(p) {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
}

let gcFn;
/**
 * A full garbage collection (V8's gc, exposed at run time), so that RSS read right after it does
 * not count JS garbage such as the file buffers of the loader. No-op when unavailable.
 */
function collectGarbage() {
  if (gcFn === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      gcFn = vm.runInNewContext('gc');
    } catch {
      gcFn = null;
    }
  }
  if (typeof gcFn === 'function') {
    gcFn();
    gcFn();
  }
}

/** The resident set size after a garbage collection, in bytes. */
function settledRss() {
  collectGarbage();
  return process.memoryUsage().rss;
}

/** The horosvec binary in use (for the records: which build was measured). */
function binaryInfo(backend) {
  const p = backend === 'wasm' ? join(PKG_DIR, 'wasm', 'horosvec_wasm_bg.wasm') : join(PKG_DIR, 'native', 'horosvec.linux-x64-gnu.node');
  try {
    const st = statSync(p);
    return {
      binary: basename(p),
      binary_mtime: st.mtime.toISOString(),
      binary_sha256: createHash('sha256').update(readFileSync(p)).digest('hex').slice(0, 16),
    };
  } catch {
    return { binary: null, binary_mtime: null, binary_sha256: null };
  }
}

/** Nearest-rank percentile of a sorted array. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i];
}

class Samples {
  constructor() {
    this.a = new Float64Array(1024);
    this.n = 0;
  }
  push(v) {
    if (this.n === this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  sorted() {
    return this.a.slice(0, this.n).sort();
  }
}

/** Progress bars on a TTY stderr; no-ops otherwise. */
async function progress(enabled) {
  const none = { start() {}, update() {}, increment() {}, stop() {} };
  if (!enabled) return () => none;
  let cliProgress;
  try {
    ({ default: cliProgress } = await import('cli-progress'));
  } catch {
    return () => none;
  }
  return (label, total, unit) => {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label.padEnd(14)} [{bar}] {percentage}% | {value}/{total} ${unit} | {duration_formatted}`,
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: true,
        barsize: 30,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0);
    return bar;
  };
}

function storeHits(hits, q, k, ids, dists) {
  for (let j = 0; j < k; j++) {
    const h = hits[j];
    ids[q * k + j] = h === undefined ? -1 : h.id;
    dists[q * k + j] = h === undefined ? Infinity : h.distance;
  }
}

// ---- measurement ------------------------------------------------------------------------------

/** Fields describing the run's machine and revision, common to every record. */
function envFields() {
  return {
    storage: 'memory',
    ...(({ git_rev, git_dirty, date }) => ({ git_rev, git_dirty, date }))(provenance()),
    cpu: os.cpus()[0]?.model ?? null,
    cores: os.cpus().length,
    node: process.version,
    load_avg_1m: round(os.loadavg()[0], 2),
  };
}

/**
 * Single-query throughput: `warmup` untimed calls, then `one(q)` for q cycling over the queries
 * until at least `budget` ns have passed (at least one call); every call is timed on its own.
 */
function timedSingle(one, nq, warmup, budget) {
  for (let i = 0; i < warmup; i++) one(i % nq);
  const lat = new Samples();
  let count = 0;
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  let now = start;
  do {
    const t0 = process.hrtime.bigint();
    one(count % nq);
    now = process.hrtime.bigint();
    lat.push(Number(now - t0) / 1e6);
    count++;
  } while (now - start < budget);
  const cpu = process.cpuUsage(cpu0);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  return { qps: count / (Number(now - start) / 1e9), lat: lat.sorted(), count, qpsCpu: cpuS > 0 ? count / cpuS : null };
}

/** CPU seconds (user + system, all threads of the process) since `from` (a process.cpuUsage()). */
function cpuSeconds(from) {
  const c = process.cpuUsage(from);
  return (c.user + c.system) / 1e6;
}

/**
 * Batch throughput: searchBatch calls of `B` consecutive queries, cycling (all calls full size);
 * the first time each query is answered feeds the batch recall.
 */
async function timedBatch(col, qrows, sopts, B, budget, k, dim, gt, n, bar) {
  const nq = qrows.length;
  const ext = new Float32Array((nq + B) * dim);
  for (let r = 0; r < nq + B; r++) ext.set(qrows[r % nq], r * dim);
  const bIds = new Int32Array(nq * k);
  const bDists = new Float64Array(nq * k);
  const seen = new Uint8Array(nq);
  let unseen = nq;
  const record = (offset, results) => {
    for (let j = 0; j < results.length; j++) {
      const q = (offset + j) % nq;
      if (seen[q]) continue;
      seen[q] = 1;
      unseen--;
      storeHits(results[j], q, k, bIds, bDists);
    }
  };
  const call = (offset) => col.searchBatch(ext.subarray(offset * dim, (offset + B) * dim), sopts);
  record(0, await call(0)); // warm-up call, not timed
  const blat = new Samples();
  let calls = 0;
  let offset = B % nq;
  const bstart = process.hrtime.bigint();
  let bnow = bstart;
  do {
    const t0 = process.hrtime.bigint();
    const res = await call(offset);
    bnow = process.hrtime.bigint();
    blat.push(Number(bnow - t0) / 1e6);
    if (unseen > 0) record(offset, res);
    calls++;
    offset = (offset + B) % nq;
  } while (bnow - bstart < budget);
  const qps = (calls * B) / (Number(bnow - bstart) / 1e9);
  const lat = blat.sorted();
  if (unseen > 0) {
    const b = bar('batch recall', nq, 'queries');
    b.update(nq - unseen);
    for (let s = 0; s < nq; s += B) {
      if (seen.subarray(s, Math.min(nq, s + B)).every((x) => x === 1)) continue;
      record(s, await call(s));
      b.update(nq - unseen);
    }
    b.stop();
  }
  return { qps, lat, calls, recall: recallOf(bIds, bDists, nq, k, gt, n) };
}

/** Recall pass: `one(q, ids, dists)` stores query q's hits; queries one after another. */
function recallPass(one, nq, k, gt, n, bar, label) {
  const b = bar(label, nq, 'queries');
  const rIds = new Int32Array(nq * k);
  const rDists = new Float64Array(nq * k);
  for (let q = 0; q < nq; q++) {
    one(q, rIds, rDists);
    if ((q & 15) === 15 || q === nq - 1) b.update(q + 1);
  }
  b.stop();
  return recallOf(rIds, rDists, nq, k, gt, n);
}

// ---- bench ----------------------------------------------------------------------------------

/** Loads the base, the queries and the ground truth (from the file, or by brute force). */
function loadData(opts, bar) {
  const { k, metric } = opts;
  const prefix = opts.n !== null;
  const useGtFile = opts.gt !== undefined && !prefix;
  const files = [opts.base, opts.queries, ...(useGtFile ? [opts.gt] : [])];
  const mb = (b) => Math.max(1, Math.round(b / 1e6));
  const totalMb = files.reduce((s, p) => s + mb(fileSize(p)), 0);
  let b = bar('loading', totalMb, 'MB');
  let done = 0;
  const baseFile = readVecs(opts.base);
  b.update((done += mb(fileSize(opts.base))));
  const queryFile = readVecs(opts.queries);
  b.update((done += mb(fileSize(opts.queries))));
  let gtFile = null;
  if (useGtFile) {
    gtFile = readVecs(opts.gt);
    b.update((done += mb(fileSize(opts.gt))));
  }
  b.stop();

  const dim = baseFile.dim;
  if (queryFile.dim !== dim) {
    throw dataError('HV_DIM_MISMATCH', `${opts.queries} has dim ${queryFile.dim}, ${opts.base} has dim ${dim}`);
  }
  if (baseFile.data instanceof Int32Array) {
    throw dataError('HV_INVALID_ARGUMENT', `${opts.base} is an .ivecs file; base vectors must be .fvecs, .f16vecs or .bvecs`);
  }
  if (prefix && opts.n > baseFile.n) {
    throw dataError('HV_INVALID_ARGUMENT', `--n ${opts.n} exceeds the ${baseFile.n} rows of ${opts.base}`);
  }
  if (opts.nq !== null && opts.nq > queryFile.n) {
    throw dataError('HV_INVALID_ARGUMENT', `--nq ${opts.nq} exceeds the ${queryFile.n} rows of ${opts.queries}`);
  }
  const n = prefix ? opts.n : baseFile.n;
  const nq = opts.nq ?? queryFile.n;
  if (k > n) throw dataError('HV_INVALID_ARGUMENT', `--k ${k} exceeds the ${n} base rows`);
  const baseData = baseFile.data.subarray(0, n * dim);
  const queryData = queryFile.data instanceof Float32Array ? queryFile.data.subarray(0, nq * dim) : Float32Array.from(queryFile.data.subarray(0, nq * dim));

  // Ground truth.
  let gt;
  let gtNote;
  if (gtFile !== null) {
    if (!(gtFile.data instanceof Int32Array)) throw dataError('HV_INVALID_ARGUMENT', `--gt must be an .ivecs file, got ${opts.gt}`);
    if (gtFile.n < nq) throw dataError('HV_CORRUPT', `${opts.gt} has ${gtFile.n} rows for ${nq} queries`);
    if (gtFile.dim < k) throw dataError('HV_INVALID_ARGUMENT', `--k ${k} exceeds the ${gtFile.dim} neighbours per query of ${opts.gt}`);
    for (let q = 0; q < nq; q++) {
      for (let j = 0; j < k; j++) {
        const id = gtFile.data[q * gtFile.dim + j];
        if (id < 0 || id >= n) throw dataError('HV_CORRUPT', `${opts.gt} row ${q} names base row ${id}, but the base has ${n} rows`);
      }
    }
    const d = readGtDistances(opts.gt, gtFile, metric);
    gt = { ids: gtFile.data, dists: d.dists, width: gtFile.dim };
    gtNote = `from ${basename(opts.gt)}; tie-tolerant: ${d.note}`;
  } else {
    const why = prefix && opts.gt !== undefined ? `--n ${n} makes ${basename(opts.gt)} invalid` : 'no --gt given';
    b = bar('ground truth', nq, 'queries');
    const t0 = process.hrtime.bigint();
    gt = bruteForce(baseData, n, dim, queryData, nq, k, metric, b);
    b.stop();
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    gtNote = `recomputed (${why}): float64 brute force in JS over the first ${n} rows, ${s.toFixed(1)} s (slow for a large n)`;
  }
  const qrows = new Array(nq);
  for (let q = 0; q < nq; q++) qrows[q] = queryData.subarray(q * dim, (q + 1) * dim);
  return {
    n,
    nq,
    dim,
    baseData,
    qrows,
    gt,
    gtNote,
    groundTruth: gtFile !== null ? 'file' : 'brute-force-f64',
    dataset: `${basename(dirname(resolve(opts.base)))}/${basename(opts.base)}`,
  };
}

async function bench(opts) {
  const showBars = Boolean(process.stderr.isTTY) && !opts.json;
  const bar = await progress(showBars);
  if (opts.engine === 'hnswlib') {
    const hnswlib = loadHnswlib(); // before the data, to fail fast
    return benchHnswlib(opts, loadData(opts, bar), bar, hnswlib);
  }
  const lib = await import('horosvec');
  const data = loadData(opts, bar);
  if (opts.index === 'vamana') return benchIndex(opts, data, bar, lib, showBars);
  return benchExact(opts, data, bar, lib);
}

/** Adds the base rows (ids = row numbers) in chunks; returns the seconds it took. */
async function addRows(col, opts, data, bar) {
  const { n, dim, baseData } = data;
  const b = bar('adding', n, 'vectors');
  const tb = process.hrtime.bigint();
  const vec = baseData instanceof Float32Array ? baseData : Float32Array.from(baseData);
  for (let s = 0; s < n; s += ADD_CHUNK) {
    const e = Math.min(n, s + ADD_CHUNK);
    const ids = new Array(e - s);
    for (let i = 0; i < ids.length; i++) ids[i] = s + i;
    try {
      await col.add(ids, vec.subarray(s * dim, e * dim));
    } catch (err) {
      // Name the file and the base row, not the row within this chunk.
      const m = /^(HV_[A-Z_]+): vector (\d+) (.*)$/s.exec(err.message ?? '');
      if (m) throw dataError(m[1], `${opts.base}: base row ${s + Number(m[2])} ${m[3]}`);
      throw err;
    }
    b.update(e);
  }
  const s = Number(process.hrtime.bigint() - tb) / 1e9;
  b.stop();
  return s;
}

async function benchExact(opts, data, bar, lib) {
  const { Collection, backend, kernel, version } = lib;
  const { k, metric } = opts;
  const { n, nq, dim, qrows, gt, gtNote } = data;
  const col = Collection.create({ dim, metric });
  try {
    const buildS = await addRows(col, opts, data, bar);
    const stats = col.stats();
    const sopts = { k, includeMetadata: false };
    const budget = BigInt(Math.round(opts.seconds * 1e9));

    // Single: warm-up, timed loop, then a recall pass.
    const single = timedSingle((q) => col.searchSync(qrows[q], sopts), nq, opts.warmup, budget);
    const singleQps = single.qps;
    const singleLat = single.lat;
    const count = single.count;
    const singleRecall = recallPass((q, ids, dists) => storeHits(col.searchSync(qrows[q], sopts), q, k, ids, dists), nq, k, gt, n, bar, 'recall pass');

    // Batch.
    const B = opts.batch;
    const batch = await timedBatch(col, qrows, sopts, B, budget, k, dim, gt, n, bar);
    const batchQps = batch.qps;
    const batchLat = batch.lat;
    const batchRecall = batch.recall;

    const rssMb = process.memoryUsage().rss / 1e6;
    const gbps = (qps) => (n * dim * 4 * qps) / 1e9;
    const common = {
      engine: 'horosvec',
      engine_version: version,
      backend,
      kernel: stats.kernel ?? kernel,
      threads: stats.threads,
      params: {},
      dataset: data.dataset,
      n,
      nq,
      dim,
      metric,
      k,
      build_s: round(buildS, 4),
      add_s: round(buildS, 4),
      index_s: null,
      ground_truth: data.groundTruth,
    };
    const env = {
      rss_mb: round(rssMb, 1),
      bytes_per_vector: stats.vectorBytes / n,
      ...envFields(),
    };
    const singleRec = {
      ...common,
      mode: stats.mode,
      batch: 1,
      recall_mean: round(singleRecall.mean, 6),
      recall_min: round(singleRecall.min, 6),
      recall_tie_tolerant: singleRecall.tie === null ? null : round(singleRecall.tie, 6),
      qps: round(singleQps, 2),
      p50_ms: round(percentile(singleLat, 0.5), 4),
      p99_ms: round(percentile(singleLat, 0.99), 4),
      latency_unit: 'query',
      timed_searches: count,
      scan_gbps: round(gbps(singleQps), 3),
      ...env,
    };
    const batchRec = {
      ...common,
      mode: `${stats.mode}-batch`,
      batch: B,
      recall_mean: round(batchRecall.mean, 6),
      recall_min: round(batchRecall.min, 6),
      recall_tie_tolerant: batchRecall.tie === null ? null : round(batchRecall.tie, 6),
      qps: round(batchQps, 2),
      p50_ms: round(percentile(batchLat, 0.5), 4),
      p99_ms: round(percentile(batchLat, 0.99), 4),
      latency_unit: 'call',
      timed_searches: batch.calls * B,
      scan_gbps: round(gbps(batchQps), 3),
      ...env,
    };

    if (opts.json) {
      process.stdout.write(`${JSON.stringify(singleRec)}\n${JSON.stringify(batchRec)}\n`);
      return;
    }
    const f = (x, d) => (x === null ? 'n/a' : x.toFixed(d));
    const lines = [
      `horosvec ${version} bench: ${common.dataset}`,
      `  n ${n}  dim ${dim}  metric ${metric}  k ${k}  queries ${nq}`,
      `  backend ${backend}  kernel ${singleRec.kernel}  mode ${stats.mode}  threads ${stats.threads}`,
      `  build          ${buildS.toFixed(3)} s`,
      `  ground truth   ${gtNote}`,
      `  ${`recall@${k}`.padEnd(15)}mean ${f(singleRecall.mean, 4)}  min ${f(singleRecall.min, 4)}  tie-tolerant ${f(singleRecall.tie, 4)}` +
        `  (batch: mean ${f(batchRecall.mean, 4)})`,
      `  single query   ${singleQps.toFixed(1)} QPS  p50 ${singleRec.p50_ms.toFixed(3)} ms  p99 ${singleRec.p99_ms.toFixed(3)} ms` +
        `  scan ${gbps(singleQps).toFixed(2)} GB/s  (${count} searches, warm-up ${opts.warmup})`,
      `  ${`batch of ${B}`.padEnd(15)}${batchQps.toFixed(1)} QPS  (${(batchQps / singleQps).toFixed(2)}× single)` +
        `  per call p50 ${batchRec.p50_ms.toFixed(3)} ms  p99 ${batchRec.p99_ms.toFixed(3)} ms  scan ${gbps(batchQps).toFixed(2)} GB/s`,
      `  memory         rss ${rssMb.toFixed(0)} MB (whole process, loaded files included)  ${env.bytes_per_vector} bytes/vector stored`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await col.close();
  }
}

/** One record per ef point, for an index (horosvec's or hnswlib's). */
function pointRecord(head, data, opts, ef, recall, single, tail) {
  return {
    ...head,
    params: { ...head.params, ef },
    dataset: data.dataset,
    n: data.n,
    nq: data.nq,
    dim: data.dim,
    metric: opts.metric,
    k: opts.k,
    batch: 1,
    build_s: head.build_s,
    recall_mean: round(recall.mean, 6),
    recall_min: round(recall.min, 6),
    recall_tie_tolerant: recall.tie === null ? null : round(recall.tie, 6),
    qps: round(single.qps, 2),
    qps_cpu: single.qpsCpu === undefined ? undefined : round(single.qpsCpu, 2),
    p50_ms: round(percentile(single.lat, 0.5), 4),
    p99_ms: round(percentile(single.lat, 0.99), 4),
    latency_unit: 'query',
    timed_searches: single.count,
    warmup: opts.warmup,
    ...tail,
    rss_mb: round(process.memoryUsage().rss / 1e6, 1),
    ...envFields(),
  };
}

async function benchIndex(opts, data, bar, lib, showBars) {
  const { Collection, backend, kernel, version } = lib;
  const { k, metric } = opts;
  const { n, nq, dim, qrows, gt } = data;
  const col = Collection.create({ dim, metric });
  try {
    const rss0 = settledRss();
    const cpu0 = process.cpuUsage();
    const addS = await addRows(col, opts, data, bar);
    const params = { R: opts.R, L: opts.L, alpha: opts.alpha, passes: opts.passes, bits: opts.bits, seed: opts.seed };
    let ib = null;
    const onProgress = (done, total) => {
      if (ib === null) ib = bar('buildIndex', total, 'steps');
      ib.update(done);
    };
    const ti = process.hrtime.bigint();
    await col.buildIndex({ kind: 'vamana', ...params, ...(showBars ? { onProgress } : {}) });
    const indexS = Number(process.hrtime.bigint() - ti) / 1e9;
    const buildCpuS = cpuSeconds(cpu0);
    if (ib !== null) ib.stop();
    const rssDelta = settledRss() - rss0;
    const stats = col.stats();
    // bits left to the library's by-dimension default: record the width it chose (in the mode)
    const chosen = /rabitq(\d)$/.exec(stats.mode);
    if (params.bits === undefined && chosen !== null) params.bits = Number(chosen[1]);
    const buildS = addS + indexS;
    const budget = BigInt(Math.round(opts.seconds * 1e9));
    const head = {
      engine: 'horosvec',
      engine_version: version,
      backend,
      mode: stats.mode,
      kernel: stats.kernel ?? kernel,
      threads: stats.threads,
      params,
      build_s: round(buildS, 4),
      add_s: round(addS, 4),
      index_s: round(indexS, 4),
      build_cpu_s: round(buildCpuS, 3),
      ground_truth: data.groundTruth,
      ...binaryInfo(backend),
    };
    const memory = {
      bytes_per_vector: stats.indexBytesPerVector,
      vector_bytes_per_vector: stats.vectorBytes / n,
      rss_build_delta_mb: round(rssDelta / 1e6, 1),
      rss_build_bytes_per_vector: round(rssDelta / n, 1),
    };
    const recs = [];
    for (const ef of opts.efs) {
      const sopts = { k, ef, includeMetadata: false };
      const recall = recallPass((q, ids, dists) => storeHits(col.searchSync(qrows[q], sopts), q, k, ids, dists), nq, k, gt, n, bar, `recall ef ${ef}`);
      const single = timedSingle((q) => col.searchSync(qrows[q], sopts), nq, opts.warmup, budget);
      const rec = pointRecord(head, data, opts, ef, recall, single, memory);
      recs.push(rec);
      if (opts.json) process.stdout.write(`${JSON.stringify(rec)}\n`);
      if (opts.batchGiven) {
        const B = opts.batch;
        const bt = await timedBatch(col, qrows, sopts, B, budget, k, dim, gt, n, bar);
        const brec = {
          ...pointRecord({ ...head, mode: `${stats.mode}-batch` }, data, opts, ef, bt.recall, { qps: bt.qps, lat: bt.lat, count: bt.calls * B }, memory),
          batch: B,
          latency_unit: 'call',
        };
        if (opts.json) process.stdout.write(`${JSON.stringify(brec)}\n`);
        else rec.batch_qps = brec.qps; // for the human table
      }
    }
    if (!opts.json) {
      const pr = params;
      printIndexSummary(opts, data, {
        title: `horosvec ${version} bench: ${data.dataset}`,
        engineLine: `backend ${backend}  kernel ${head.kernel}  mode ${stats.mode}  threads ${stats.threads}`,
        paramLine: `R ${pr.R}  L ${pr.L}  alpha ${pr.alpha}  passes ${pr.passes}  bits ${pr.bits}  seed ${pr.seed}`,
        buildLine: `${buildS.toFixed(3)} s (add ${addS.toFixed(3)} s + buildIndex ${indexS.toFixed(3)} s)`,
        memoryLine:
          `${stats.indexBytesPerVector} bytes/vector walked (codes, factors, graph) + ${memory.vector_bytes_per_vector} stored float32; ` +
          `rss ${recs.at(-1).rss_mb.toFixed(0)} MB, ${signed(memory.rss_build_delta_mb)} MB over add + buildIndex`,
        recs,
      });
    }
  } finally {
    await col.close();
  }
}

function signed(x) {
  return `${x >= 0 ? '+' : ''}${x.toFixed(0)}`;
}

/** The recall–QPS table of an ef sweep (human mode). */
function printIndexSummary(opts, data, s) {
  const { k } = opts;
  const f = (x, d) => (x === null || x === undefined ? 'n/a' : x.toFixed(d));
  const withBatch = s.recs.some((r) => r.batch_qps !== undefined);
  const lines = [
    s.title,
    `  n ${data.n}  dim ${data.dim}  metric ${opts.metric}  k ${k}  queries ${data.nq}`,
    `  ${s.engineLine}`,
    `  params         ${s.paramLine}`,
    `  build          ${s.buildLine}`,
    `  ground truth   ${data.gtNote}`,
    `  memory         ${s.memoryLine}`,
    `  single query, one at a time (warm-up ${opts.warmup}, ≥ ${opts.seconds} s per point; QPS/cpu-s: per CPU second of the process):`,
    `  ${'ef'.padStart(6)}  ${`recall@${k}`.padStart(9)}  ${'min'.padStart(6)}  ${'tie-tol'.padStart(7)}  ${'QPS'.padStart(9)}  ${'QPS/cpu-s'.padStart(9)}  ${'p50 ms'.padStart(8)}  ${'p99 ms'.padStart(8)}` +
      (withBatch ? `  ${`batch ${opts.batch} QPS`.padStart(14)}` : ''),
  ];
  for (const r of s.recs) {
    lines.push(
      `  ${String(r.params.ef).padStart(6)}  ${f(r.recall_mean, 4).padStart(9)}  ${f(r.recall_min, 2).padStart(6)}  ${f(r.recall_tie_tolerant, 4).padStart(7)}` +
        `  ${f(r.qps, 1).padStart(9)}  ${f(r.qps_cpu, 1).padStart(9)}  ${f(r.p50_ms, 3).padStart(8)}  ${f(r.p99_ms, 3).padStart(8)}` +
        (withBatch ? `  ${f(r.batch_qps, 1).padStart(14)}` : ''),
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

// ---- hnswlib --------------------------------------------------------------------------------

function loadHnswlib() {
  const require = createRequire(import.meta.url);
  try {
    const mod = require('hnswlib-node');
    const pkg = require('hnswlib-node/package.json');
    return { HierarchicalNSW: mod.HierarchicalNSW, version: pkg.version };
  } catch (e) {
    throw dataError(
      'HV_IO',
      `--engine hnswlib needs the hnswlib-node package (a dev dependency of the horosvec repository; run npm install at its root): ${String(e?.message).split('\n')[0]}`,
    );
  }
}

/**
 * hnswlib's memory per element from its layout (hnswalg.h): level-0 block (vector, 2M links and
 * their count, 8-byte label), upper-level links (M links + count on an expected 1/(M−1) levels),
 * the linkLists_ pointer, element_levels_ entry, one std::mutex (40 bytes on Linux x86-64) and
 * one label_lookup_ hash node with its bucket (≈ 32 bytes). Fixed-size parts (65,536 label locks,
 * visited lists) are left out.
 */
function hnswBytesPerVector(dim, M) {
  const parts = {
    vector: dim * 4,
    level0_links: 2 * M * 4 + 4,
    label: 8,
    upper_links: round((M * 4 + 4) / (M - 1), 2),
    link_list_pointer: 8,
    element_level: 4,
    mutex: 40,
    label_map: 32,
  };
  const total = Object.values(parts).reduce((s, x) => s + x, 0);
  return { total: round(total, 2), parts };
}

async function benchHnswlib(opts, data, bar, hnswlib) {
  const { k, metric } = opts;
  const { n, nq, dim, baseData, qrows, gt } = data;
  const space = HNSW_SPACES[metric];
  // hnswlib distances → horosvec's convention (for the tie-tolerant recall): ip is 1 − q·x there.
  const toOurs = metric === 'ip' ? (d) => d - 1 : (d) => d;

  const rss0 = settledRss();
  const b = bar('addPoint', n, 'vectors');
  const cpu0 = process.cpuUsage();
  const tb = process.hrtime.bigint();
  const index = new hnswlib.HierarchicalNSW(space, dim);
  index.initIndex(n, opts.M, opts.efConstruction, opts.seed);
  const row = new Array(dim).fill(0); // the binding takes number[]; one array reused
  for (let i = 0; i < n; i++) {
    const o = i * dim;
    for (let j = 0; j < dim; j++) row[j] = baseData[o + j];
    index.addPoint(row, i);
    if ((i & 1023) === 1023 || i === n - 1) b.update(i + 1);
  }
  const buildS = Number(process.hrtime.bigint() - tb) / 1e9;
  const buildCpuS = cpuSeconds(cpu0);
  b.stop();
  const rssDelta = settledRss() - rss0;

  // Queries as number[], converted before any timed loop.
  const qarr = qrows.map((q) => Array.from(q));
  const budget = BigInt(Math.round(opts.seconds * 1e9));
  const est = hnswBytesPerVector(dim, opts.M);
  const head = {
    engine: 'hnswlib',
    engine_version: hnswlib.version,
    backend: 'native',
    mode: 'hnsw',
    kernel: 'hnswlib-simd',
    kernel_detail: 'hnswlib compiled by node-gyp with its default flags (no -march): SSE distance kernels',
    threads: 1,
    params: { M: opts.M, efConstruction: opts.efConstruction, seed: opts.seed },
    build_s: round(buildS, 4),
    add_s: round(buildS, 4),
    index_s: null,
    build_cpu_s: round(buildCpuS, 3),
    ground_truth: data.groundTruth,
  };
  const memory = {
    bytes_per_vector: est.total,
    bytes_per_vector_parts: est.parts,
    rss_build_delta_mb: round(rssDelta / 1e6, 1),
    rss_build_bytes_per_vector: round(rssDelta / n, 1),
  };
  const recs = [];
  for (const ef of opts.efs) {
    index.setEf(ef);
    const recall = recallPass(
      (q, ids, dists) => {
        const r = index.searchKnn(qarr[q], k);
        for (let j = 0; j < k; j++) {
          ids[q * k + j] = j < r.neighbors.length ? r.neighbors[j] : -1;
          dists[q * k + j] = j < r.distances.length ? toOurs(r.distances[j]) : Infinity;
        }
      },
      nq,
      k,
      gt,
      n,
      bar,
      `recall ef ${ef}`,
    );
    const single = timedSingle((q) => index.searchKnn(qarr[q], k), nq, opts.warmup, budget);
    const rec = pointRecord(head, data, opts, ef, recall, single, memory);
    recs.push(rec);
    if (opts.json) process.stdout.write(`${JSON.stringify(rec)}\n`);
  }
  if (!opts.json) {
    printIndexSummary(opts, data, {
      title: `hnswlib-node ${hnswlib.version} bench: ${data.dataset}`,
      engineLine: `backend native  kernel hnswlib-simd (SSE, default node-gyp flags)  mode hnsw  threads 1`,
      paramLine: `M ${opts.M}  efConstruction ${opts.efConstruction}  seed ${opts.seed}`,
      buildLine: `${buildS.toFixed(3)} s (addPoint per row, one thread)`,
      memoryLine: `≈ ${est.total} bytes/vector by hnswlib's layout; rss ${signed(memory.rss_build_delta_mb)} MB over the build (${memory.rss_build_bytes_per_vector} bytes/vector)`,
      recs,
    });
  }
}

function round(x, d) {
  if (!Number.isFinite(x)) return null;
  const m = 10 ** d;
  return Math.round(x * m) / m;
}

// ---- entry point ----------------------------------------------------------------------------

/** `horosvec bench ARGS` / `node bench/ef-sweep.mjs ARGS`: exit code 0, or throws (UsageError: exit 2). */
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
export function reportError(e) {
  if (e && e.usage === true) {
    process.stderr.write(`horosvec: ${e.message}\n${SHORT_USAGE}\n`);
    return 2;
  }
  const code = e && typeof e.code === 'string' && e.code.startsWith('HV_') ? e.code : 'HV_INTERNAL';
  let msg = String(e && e.message !== undefined ? e.message : e);
  if (msg.startsWith(`${code}: `)) msg = msg.slice(code.length + 2);
  process.stderr.write(`horosvec: ${code}: ${msg}\n`);
  if (process.env.HOROSVEC_DEBUG && e && e.stack) process.stderr.write(`${e.stack}\n`);
  return 1;
}

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
