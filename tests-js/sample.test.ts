// Exact search on the shipped real sample (20,000 MiniLM sentence embeddings, 500 held-out
// queries): recall@10 against the independently computed ground truth must be 1 on both backends.
import { describe, expect, it } from 'vitest';
import { backends } from './helpers/backends.js';
import { loadSample } from './helpers/sample.js';

const s = loadSample();
const K = 10;

function recall(hits: { id: unknown; distance: number }[][]): { strict: number; tolerant: number } {
  let strict = 0, tolerant = 0;
  hits.forEach((h, q) => {
    const want = new Set(Array.from(s.gt.data.subarray(q * s.gt.dim, q * s.gt.dim + K)));
    const kth = s.gtDist.data[q * s.gtDist.dim + K - 1];
    for (const hit of h.slice(0, K)) {
      if (want.has(hit.id as number)) strict++;
      if (want.has(hit.id as number) || hit.distance <= kth + 1e-5) tolerant++;
    }
  });
  return { strict: strict / (hits.length * K), tolerant: tolerant / (hits.length * K) };
}

describe.each(backends)('%s backend on the shipped sample', (_name, hv) => {
  it('exact search has recall@10 = 1 (single and batch) and semantic neighbours make sense', async () => {
    expect(s.n).toBe(20000);
    expect(s.dim).toBe(384);
    const col = hv.Collection.create({ dim: s.dim, metric: 'cosine' });
    await col.add([...Array(s.n).keys()], s.base);
    const batch = await col.searchBatch(s.queries.data, { k: K });
    expect(batch).toHaveLength(500);
    const r = recall(batch);
    expect(r.tolerant).toBe(1);
    expect(r.strict).toBeGreaterThanOrEqual(0.999);
    const single = [];
    for (let q = 0; q < 100; q++) single.push(col.searchSync(s.queries.data.subarray(q * s.dim, (q + 1) * s.dim), { k: K }));
    expect(single.map((h) => h.map((x) => x.id))).toEqual(batch.slice(0, 100).map((h) => h.map((x) => x.id)));
    // distances agree with the ground truth's cosine distances
    for (let q = 0; q < 20; q++) {
      expect(batch[q][0].distance).toBeCloseTo(s.gtDist.data[q * s.gtDist.dim], 4);
    }
    await col.close();
  });
});
