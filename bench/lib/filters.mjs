// The filtered-search sweep's data and ground truth (bench/README.md, "filtered"): real metadata for
// the base rows, the filters, which rows each filter matches (evaluated here, independently of any
// engine), the exact top-k among those rows (float64 brute force, cached), and the per-query
// measures of a filtered result (recall@k over min(k, matches), hits returned, hits that do not match).
//
// Metadata of row i: `source`, the prefix before ':' of the record's id in the dataset's
// texts_base.jsonl.gz (minilm384 and the shipped sample: gcide, wordnet, fortune, foldoc, jargon);
// `rank`, an integer uniform in 0..RANK_RANGE-1 from a seeded PRNG (the i-th draw, so a prefix of
// the base keeps its values). Filters: each source (implicit $eq), `rank` ranges
// `{ $gte: RANGE_START, $lt: RANGE_START + s·RANK_RANGE }` for the target selectivities s, one
// filter that matches every row (`{ rank: { $gte: 0 } }`) and no filter at all (`none`).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { bruteForce } from './groundtruth.mjs';
import { ROOT, DATASETS } from '../datasets.mjs';

export const RANK_SEED = 14;
export const RANK_RANGE = 100_000;
export const RANGE_START = 25_000;
export const SELECTIVITIES = [0.001, 0.01, 0.1, 0.5];
export const SOURCES = ['gcide', 'wordnet', 'fortune', 'foldoc', 'jargon'];

/** Whether dataset `name` has the texts file the metadata comes from. */
export function hasMetadata(name) {
  const ds = DATASETS[name];
  return ds?.texts !== undefined && existsSync(join(ds.dir, ds.texts));
}

/** mulberry32: a small seeded 32-bit PRNG, floats in [0, 1). */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `{ source, rank }` of the first `n` base rows of dataset `name`, in row order. */
export function loadMetadata(name, n) {
  const ds = DATASETS[name];
  const lines = gunzipSync(readFileSync(join(ds.dir, ds.texts))).toString('utf8').split('\n');
  const rnd = mulberry32(RANK_SEED);
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const line = lines[i];
    if (!line) throw new Error(`${ds.texts} has ${i} records, fewer than the ${n} base rows`);
    const id = JSON.parse(line).id;
    const c = id.indexOf(':');
    if (c <= 0) throw new Error(`${ds.texts} line ${i + 1}: id ${JSON.stringify(id)} has no source prefix`);
    out[i] = { source: id.slice(0, c), rank: Math.floor(rnd() * RANK_RANGE) };
  }
  return out;
}

const pct = (s) => `${Number((s * 100).toPrecision(3))} %`;

/**
 * The filters of the sweep: `{ name, kind, where, target }`, `where` in horosvec's filter language
 * (null for `none`), `target` the designed selectivity of a range filter (null otherwise).
 */
export function filterSet() {
  return [
    { name: 'none', kind: 'none', where: null, target: null },
    { name: 'match-all', kind: 'all', where: { rank: { $gte: 0 } }, target: 1 },
    ...SOURCES.map((s) => ({ name: `source=${s}`, kind: 'source', where: { source: s }, target: null })),
    ...SELECTIVITIES.map((s) => ({ name: `rank ${pct(s)}`, kind: 'range', where: { rank: { $gte: RANGE_START, $lt: RANGE_START + Math.round(s * RANK_RANGE) } }, target: s })),
  ];
}

/**
 * Whether metadata `m` satisfies `where`: the subset of the filter language the sweep uses
 * (implicit $eq on a field, $gte / $lt / $gt / $lte on numbers, several fields = and), evaluated
 * here so that the ground truth does not depend on the engines.
 */
export function matches(m, where) {
  if (where === null) return true;
  for (const [field, cond] of Object.entries(where)) {
    const v = m[field];
    if (cond === null || typeof cond !== 'object') {
      if (v !== cond) return false;
      continue;
    }
    for (const [op, x] of Object.entries(cond)) {
      if (!['$gte', '$gt', '$lt', '$lte'].includes(op)) throw new Error(`the harness's evaluator has no ${op}`);
      if (typeof v !== 'number') return false;
      if (op === '$gte' ? !(v >= x) : op === '$gt' ? !(v > x) : op === '$lt' ? !(v < x) : !(v <= x)) return false;
    }
  }
  return true;
}

/** The rows matching `where`: a 0/1 mask of length n and the count. */
export function maskOf(metadata, where) {
  const mask = new Uint8Array(metadata.length);
  let count = 0;
  for (let i = 0; i < metadata.length; i++) {
    if (matches(metadata[i], where)) {
      mask[i] = 1;
      count++;
    }
  }
  return { mask, count };
}

/**
 * Exact top-`k` ids among the rows of `mask` (`nq × k` Int32Array, −1 past the matches), by
 * bench/lib/groundtruth.mjs's float64 brute force over the matching rows only; cached in
 * target/bench-cache/ under a hash of the mask (equal masks share a file).
 */
export function filteredGroundTruth(data, metric, k, mask, count) {
  const hash = createHash('sha256').update(mask).digest('hex').slice(0, 16);
  const dir = join(ROOT, 'target', 'bench-cache');
  const file = join(dir, `gt-filtered-${data.name}-n${data.n}-nq${data.nq}-k${k}-${metric}-${hash}.i32`);
  if (existsSync(file) && statSync(file).size === data.nq * k * 4) {
    const buf = readFileSync(file);
    return { ids: new Int32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)), cached: true };
  }
  const rows = new Int32Array(count);
  const sub = new Float32Array(count * data.dim);
  for (let i = 0, j = 0; i < data.n; i++) {
    if (!mask[i]) continue;
    rows[j] = i;
    sub.set(data.base.subarray(i * data.dim, (i + 1) * data.dim), j * data.dim);
    j++;
  }
  const gt = bruteForce(sub, count, data.dim, data.queries, data.nq, k, metric, null);
  const ids = new Int32Array(data.nq * k);
  for (let x = 0; x < ids.length; x++) ids[x] = gt.ids[x] < 0 ? -1 : rows[gt.ids[x]];
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, Buffer.from(ids.buffer, ids.byteOffset, ids.byteLength));
  return { ids, cached: false };
}

/**
 * The measures of one filtered result set (`results[q]` the ids returned for query q) against the
 * filtered ground truth: recall@k = |returned ∩ true top-k| / min(k, matches) (1 when nothing
 * matches and nothing is returned), hits returned (mean, min), queries that returned fewer than
 * min(k, matches) (`short_queries`), hits outside the filter or repeated (`wrong_hits`).
 */
export function filteredMeasures(results, gtIds, k, mask, count) {
  const want = Math.min(k, count);
  let sum = 0;
  let min = Infinity;
  let hits = 0;
  let minHits = Infinity;
  let short = 0;
  let wrong = 0;
  results.forEach((r, q) => {
    const truth = new Set();
    for (let j = 0; j < k; j++) if (gtIds[q * k + j] >= 0) truth.add(gtIds[q * k + j]);
    const seen = new Set();
    let hit = 0;
    for (const id of r.slice(0, k)) {
      if (seen.has(id) || !(id >= 0 && id < mask.length && mask[id])) wrong++;
      else if (truth.has(id)) hit++;
      seen.add(id);
    }
    const rec = want === 0 ? (r.length === 0 ? 1 : 0) : hit / want;
    sum += rec;
    min = Math.min(min, rec);
    const n = Math.min(k, r.length);
    hits += n;
    minHits = Math.min(minHits, n);
    if (n < want) short++;
  });
  const nq = results.length;
  const r4 = (x) => Number(x.toFixed(4));
  return { recall_mean: r4(sum / nq), recall_min: r4(min), hits_mean: r4(hits / nq), hits_min: minHits, hits_expected: want, short_queries: short, wrong_hits: wrong };
}
