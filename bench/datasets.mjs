// The one dataset table of the benchmarks (the side scripts, bench/ef-sweep.mjs and the matrix's
// lib/protocol.mjs): the repository's shipped sample and the sets in ../shared/data (see its
// README), which only the benchmarks name. `loadDataset(name)` reads base and query vectors.
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readVecs } from '../npm/cli/vecs.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export const DATASETS = {
  sample: { dir: join(ROOT, 'data', 'sample'), base: 'base.f16vecs', queries: 'queries.fvecs', gt: 'groundtruth.ivecs', metric: 'cosine' },
  minilm384: { dir: join(ROOT, '..', 'shared', 'data', 'minilm384'), base: 'base.fvecs', queries: 'query.fvecs', gt: 'groundtruth.ivecs', metric: 'cosine' },
  glove50: { dir: join(ROOT, '..', 'shared', 'data', 'glove50'), base: 'base.fvecs', queries: 'query.fvecs', gt: 'groundtruth.ivecs', metric: 'cosine' },
  sift128: { dir: join(ROOT, '..', 'shared', 'data', 'sift128'), base: 'base.fvecs', queries: 'query.fvecs', gt: 'groundtruth.ivecs', metric: 'l2' },
};

/** `{ base, queries, metric }` of dataset `name` (base/queries as readVecs returns them). */
export function loadDataset(name) {
  const ds = DATASETS[name];
  if (ds === undefined) throw new Error(`unknown dataset ${name} (expected one of ${Object.keys(DATASETS).join(', ')})`);
  return { base: readVecs(join(ds.dir, ds.base)), queries: readVecs(join(ds.dir, ds.queries)), metric: ds.metric };
}
