// The benchmark protocol shared by every sweep (see bench/README.md): datasets and prefixes, ground
// truth (the dataset's .ivecs or an exact float64 search by the harness, cached), recall@k, timing
// windows on the monotonic clock, closed-loop clients, percentiles, and the provenance fields of
// every record (revision, machine, storage medium).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, statSync, openSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { readVecs } from '../../npm/cli/vecs.js';
import { bruteForce, recallOf } from './groundtruth.mjs';
import { ROOT, DATASETS, loadDataset as readDataset } from '../datasets.mjs';
import { provenance } from './provenance.mjs';

// the one timing loop (warm-up, window, clients, percentiles): its own file, which the browser
// sweep's page imports too
export { percentile, summarize, timeLoop, cpuSeconds } from './timing.mjs';

export { ROOT, DATASETS };

/** Whether dataset `name`'s files are present (the shared sets may be absent on a fresh machine). */
export function datasetAvailable(name) {
  const ds = DATASETS[name];
  return ds !== undefined && existsSync(join(ds.dir, ds.base)) && existsSync(join(ds.dir, ds.queries));
}

/** Rows in dataset `name`'s base file, from its size and first dimension header (no full read). */
export function datasetRows(name) {
  const ds = DATASETS[name];
  const f = join(ds.dir, ds.base);
  const fd = openSync(f, 'r');
  const head = Buffer.alloc(4);
  readSync(fd, head, 0, 4, 0);
  closeSync(fd);
  const bytes = ds.base.endsWith('.f16vecs') ? 2 : 4;
  return statSync(f).size / (4 + head.readInt32LE(0) * bytes);
}

/**
 * Dataset `name`: the first `n` base rows (`n × dim`, row-major) and the first `nq` queries.
 * `{ name, base, n, dim, queries, nq, metric }`.
 */
export function loadDataset(name, { n, nq } = {}) {
  const { base: b, queries: q } = readDataset(name);
  const ds = DATASETS[name];
  const nn = Math.min(n ?? b.n, b.n);
  const nqq = Math.min(nq ?? q.n, q.n);
  return { name, base: b.data.subarray(0, nn * b.dim), n: nn, fullN: b.n, dim: b.dim, queries: q.data.subarray(0, nqq * q.dim), nq: nqq, metric: ds.metric };
}

/**
 * Exact top-`k` ids (`nq × k`, Int32Array) of the dataset's queries under `metric`: the dataset's
 * ground truth file when it applies (whole base, its own metric, k ≤ its width), otherwise a
 * float64 brute force (bench/lib/groundtruth.mjs) cached in target/bench-cache/.
 */
export function groundTruth(data, metric, k) {
  const ds = DATASETS[data.name];
  if (ds.gt && data.n === data.fullN && metric === ds.metric) {
    const g = readVecs(join(ds.dir, ds.gt));
    if (g.dim >= k && g.n >= data.nq) {
      const ids = new Int32Array(data.nq * k);
      for (let q = 0; q < data.nq; q++) for (let j = 0; j < k; j++) ids[q * k + j] = g.data[q * g.dim + j];
      return { ids, width: k, source: `file ${ds.gt}` };
    }
  }
  const cacheDir = join(ROOT, 'target', 'bench-cache');
  const file = join(cacheDir, `gt-${data.name}-n${data.n}-nq${data.nq}-k${k}-${metric}.i32`);
  if (existsSync(file) && statSync(file).size === data.nq * k * 4) {
    const buf = readFileSync(file);
    return { ids: new Int32Array(buf.buffer, buf.byteOffset, data.nq * k), width: k, source: 'harness (cached)' };
  }
  const gt = bruteForce(data.base, data.n, data.dim, data.queries, data.nq, k, metric, null);
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(file, Buffer.from(gt.ids.buffer, gt.ids.byteOffset, gt.ids.byteLength));
  return { ids: gt.ids, width: k, source: 'harness' };
}

/** `{ mean, min }` recall@k of result id lists (one array per query; missing ids as −1) against `gt`. */
export function recall(results, gt, k, n) {
  const ids = new Int32Array(results.length * k).fill(-1);
  results.forEach((r, q) => {
    for (let j = 0; j < Math.min(k, r.length); j++) ids[q * k + j] = r[j];
  });
  const r = recallOf(ids, new Float64Array(ids.length), results.length, k, { ...gt, dists: null }, n);
  return { mean: Number(r.mean.toFixed(4)), min: Number(r.min.toFixed(4)) };
}

const round = (x, d = 4) => (x === null || x === undefined ? null : Number(x.toFixed(d)));

/** The storage medium of `path`: `tmpfs`, `ssd` or `rotational` (from /sys/block), with detail. */
export function storageOf(path) {
  try {
    const lines = execFileSync('df', ['--output=source,fstype', path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n');
    const [src, fstype] = lines[lines.length - 1].trim().split(/\s+/);
    if (fstype === 'tmpfs' || fstype === 'ramfs') return { storage: 'tmpfs', storage_detail: `${fstype}` };
    const dev = src.replace('/dev/', '').replace(/p?\d+$/, '');
    let rot = null;
    try {
      rot = readFileSync(`/sys/block/${dev}/queue/rotational`, 'utf8').trim();
    } catch {
      rot = null;
    }
    const storage = rot === '1' ? 'rotational' : rot === '0' ? 'ssd' : 'unknown';
    return { storage, storage_detail: `${fstype} on ${src}${rot === '1' ? ' (the device reports itself rotational)' : ''}` };
  } catch {
    return { storage: 'unknown', storage_detail: 'df failed' };
  }
}

/** Fields every record carries: revision, date, machine, Node, the command (bench/lib/provenance.mjs). */
export const common = provenance;

/** Resident set of this process in MB, after a GC when exposed. */
export function rssMb() {
  globalThis.gc?.();
  return round(process.memoryUsage().rss / 2 ** 20, 1);
}

let gcFn;

/**
 * The resident set size in bytes after two full garbage collections (V8's gc, exposed at run time
 * when node was started without --expose-gc), so that it does not count JS garbage such as the
 * file buffers of a loader; without a gc, the plain RSS.
 */
export function settledRss() {
  if (gcFn === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      gcFn = vm.runInNewContext('gc');
    } catch {
      gcFn = null;
    }
  }
  gcFn?.();
  gcFn?.();
  return process.memoryUsage().rss;
}
