// The f16-vs-f32 comparisons' one measurement at one ef: recall@k of each collection over the
// queries, then `rounds` rounds of one timed `searchSync` window per collection, the order
// reversed every round (so drift in the machine's speed hits both alike), with the load average
// before and after each round. Used by f16-vs-f32.mjs and f16-durable.mjs.
import { loadavg } from 'node:os';
import { recallOfHits } from './groundtruth.mjs';
import { median } from './median.mjs';
import { timeLoop } from './timing.mjs';

/**
 * @param {Record<string, { searchSync: Function }>} cols the collections, by name (two or more)
 * @param {{ qs: Float32Array[], k: number, ef: number, gt: object, n: number, nq: number, rounds: number, seconds: number }} p
 * @returns {Promise<{ recall: Record<string, number>, qps: Record<string, number>, ratio: number, load: number[] }>}
 *   recall and median QPS per name; `ratio`: the median per-round QPS ratio of the second
 *   collection to the first
 */
export async function sideBySide(cols, { qs, k, ef, gt, n, nq, rounds, seconds }) {
  const names = Object.keys(cols);
  const opts = { k, ef, includeMetadata: false };
  const recall = {};
  for (const name of names) recall[name] = recallOfHits(qs.map((q) => cols[name].searchSync(q, opts)), k, gt, n).mean;
  const runs = Object.fromEntries(names.map((name) => [name, []]));
  const load = [loadavg()[0]];
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 === 0 ? names : [...names].reverse()) {
      const t = await timeLoop((i) => cols[name].searchSync(qs[i], opts), { nq, seconds, warmup: 50 });
      runs[name].push(t.qps);
    }
    load.push(loadavg()[0]);
  }
  const [a, b] = names;
  return {
    recall,
    qps: Object.fromEntries(names.map((name) => [name, median(runs[name])])),
    ratio: median(runs[b].map((x, i) => x / runs[a][i])),
    load,
  };
}
