// The one dataset table of the benchmarks (the side scripts, bench/ef-sweep.mjs and the matrix's
// lib/protocol.mjs): the repository's shipped sample and the sets in ../shared/data (see its
// README), which only the benchmarks name. `loadDataset(name)` reads a dataset's base and query
// vectors; `readVectorFiles(base, queries, …)` any pair of files, checked (bench/ef-sweep.mjs).
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readVecs } from '../npm/cli/vecs.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export const DATASETS = {
  sample: { dir: join(ROOT, 'data', 'sample'), base: 'base.f16vecs', queries: 'queries.fvecs', gt: 'groundtruth.ivecs', metric: 'cosine', texts: 'texts_base.jsonl.gz' },
  minilm384: { dir: join(ROOT, '..', 'shared', 'data', 'minilm384'), base: 'base.fvecs', queries: 'query.fvecs', gt: 'groundtruth.ivecs', metric: 'cosine', texts: 'texts_base.jsonl.gz' },
  glove50: { dir: join(ROOT, '..', 'shared', 'data', 'glove50'), base: 'base.fvecs', queries: 'query.fvecs', gt: 'groundtruth.ivecs', metric: 'cosine' },
  sift128: { dir: join(ROOT, '..', 'shared', 'data', 'sift128'), base: 'base.fvecs', queries: 'query.fvecs', gt: 'groundtruth.ivecs', metric: 'l2' },
};

/** `{ base, queries, metric }` of dataset `name` (base/queries as readVecs returns them). */
export function loadDataset(name) {
  const ds = DATASETS[name];
  if (ds === undefined) throw new Error(`unknown dataset ${name} (expected one of ${Object.keys(DATASETS).join(', ')})`);
  return { base: readVecs(join(ds.dir, ds.base)), queries: readVecs(join(ds.dir, ds.queries)), metric: ds.metric };
}

const coded = (code, message) => Object.assign(new Error(message), { code });

/**
 * The first `n` rows (all when null) of the base file and the first `nq` (all when null) of the
 * query file (.fvecs, .f16vecs, .bvecs), as Float32Array (`n × dim`, row-major): `{ base, n,
 * queries, nq, dim }`. `onRead(path)` is called after each file is read. Errors (`code`):
 * HV_IO / HV_CORRUPT from the reader, HV_DIM_MISMATCH, HV_INVALID_ARGUMENT (an .ivecs base, a
 * prefix longer than the file).
 */
export function readVectorFiles(basePath, queryPath, { n = null, nq = null, onRead = () => {} } = {}) {
  const b = readVecs(basePath);
  onRead(basePath);
  const q = readVecs(queryPath);
  onRead(queryPath);
  if (q.dim !== b.dim) throw coded('HV_DIM_MISMATCH', `${queryPath} has dim ${q.dim}, ${basePath} has dim ${b.dim}`);
  if (b.data instanceof Int32Array) throw coded('HV_INVALID_ARGUMENT', `${basePath} is an .ivecs file; base vectors must be .fvecs, .f16vecs or .bvecs`);
  if (n !== null && n > b.n) throw coded('HV_INVALID_ARGUMENT', `--n ${n} exceeds the ${b.n} rows of ${basePath}`);
  if (nq !== null && nq > q.n) throw coded('HV_INVALID_ARGUMENT', `--nq ${nq} exceeds the ${q.n} rows of ${queryPath}`);
  const rows = n ?? b.n;
  const qrows = nq ?? q.n;
  const f32 = (a) => (a instanceof Float32Array ? a : Float32Array.from(a));
  return { base: f32(b.data.subarray(0, rows * b.dim)), n: rows, queries: f32(q.data.subarray(0, qrows * b.dim)), nq: qrows, dim: b.dim };
}
