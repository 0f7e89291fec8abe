// The approximate index on both backends: build, recall floors against exact search on real
// data (a slice of the shipped sample), inserts and deletes after the build, consolidation,
// progress and cancellation. Speed lives in the benchmark, not here.
import { describe, expect, it } from 'vitest';
import { backends, expectCode, randomVectors } from './helpers/backends.js';
import { loadSample } from './helpers/sample.js';

const s = loadSample();
const N = 6000;
const NQ = 200;
const K = 10;
const base = s.base.subarray(0, N * s.dim);
const queries = s.queries.data.subarray(0, NQ * s.dim);

type Col = Awaited<ReturnType<typeof makeCol>>;
async function makeCol(hv: (typeof backends)[number][1], n = N) {
  const col = hv.Collection.create({ dim: s.dim, metric: 'cosine' });
  await col.add([...Array(n).keys()], base.subarray(0, n * s.dim));
  return col;
}

async function recall(col: Col, ef: number): Promise<number> {
  const exact = await col.searchBatch(queries, { k: K, exact: true });
  const approx = await col.searchBatch(queries, { k: K, ef });
  let hit = 0;
  approx.forEach((h, q) => {
    const want = new Set(exact[q].map((x) => x.id));
    for (const x of h) if (want.has(x.id)) hit++;
  });
  return hit / (NQ * K);
}

describe.each(backends)('%s backend: vamana + RaBitQ index', (name, hv) => {
  it('builds deterministically, reports progress, and reaches the recall floor', async () => {
    const col = await makeCol(hv);
    const calls: [number, number][] = [];
    await col.buildIndex({ R: 24, L: 48, bits: 4, seed: 7, onProgress: (d, t) => calls.push([d, t]) });
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.at(-1)![0]).toBe(calls.at(-1)![1]);
    const st = col.stats();
    expect(st.mode).toBe('vamana-rabitq4');
    expect(st.indexBytesPerVector).toBeGreaterThan(0);
    const r64 = await recall(col, 64);
    const r16 = await recall(col, 16);
    expect(r64).toBeGreaterThanOrEqual(0.9);
    expect(r64).toBeGreaterThanOrEqual(r16);
    // distances returned by the index are exact
    const q = queries.subarray(0, s.dim);
    const a = await col.search(q, { k: 5, ef: 64 });
    const e = await col.search(q, { k: 5, exact: true });
    const exactById = new Map(e.map((h) => [h.id, h.distance]));
    for (const h of a) if (exactById.has(h.id)) expect(h.distance).toBeCloseTo(exactById.get(h.id)!, 6);
    // same seed, same data: same index, same answers
    const col2 = await makeCol(hv);
    await col2.buildIndex({ R: 24, L: 48, bits: 4, seed: 7 });
    const b1 = await col.searchBatch(queries.subarray(0, 20 * s.dim), { k: K, ef: 32 });
    const b2 = await col2.searchBatch(queries.subarray(0, 20 * s.dim), { k: K, ef: 32 });
    expect(b2.map((h) => h.map((x) => x.id))).toEqual(b1.map((h) => h.map((x) => x.id)));
    expect(col.searchSync(q, { k: 3, ef: 32 }).map((h) => h.id)).toEqual((await col.search(q, { k: 3, ef: 32 })).map((h) => h.id));
  });

  it('picks the code width by dimension (1 bit from 320-d, 2 from 160-d, 4 below); exact: false forces the index on a small collection', async () => {
    for (const [dim, mode] of [[384, 'vamana-rabitq1'], [200, 'vamana-rabitq2'], [64, 'vamana-rabitq4']] as const) {
      const col = hv.Collection.create({ dim, metric: 'l2' });
      const n = 500; // below the flat threshold: searches scan exactly unless exact: false
      const data = randomVectors(n, dim, dim);
      await col.add([...Array(n).keys()], data);
      await col.buildIndex({ seed: 5 });
      expect(col.stats().mode).toBe(mode);
      const q = data.subarray(7 * dim, 8 * dim);
      const viaIndex = await col.search(q, { k: 5, exact: false, ef: 32 });
      const flat = await col.search(q, { k: 5 });
      expect(viaIndex[0]).toMatchObject({ id: 7, distance: 0 });
      expect(flat[0]).toMatchObject({ id: 7, distance: 0 });
      col.close();
    }
  });

  it('supports 1-bit codes and l2 / ip metrics, and l1 with an exact walk', async () => {
    for (const [metric, bits, mode] of [['l2', 1, 'vamana-rabitq1'], ['ip', 2, 'vamana-rabitq2'], ['l1', 4, 'vamana-exact']] as const) {
      const col = hv.Collection.create({ dim: s.dim, metric });
      await col.add([...Array(3000).keys()], base.subarray(0, 3000 * s.dim));
      await col.buildIndex({ bits, seed: 1 });
      expect(col.stats().mode).toBe(mode);
      const exact = await col.searchBatch(queries.subarray(0, 50 * s.dim), { k: K, exact: true });
      const approx = await col.searchBatch(queries.subarray(0, 50 * s.dim), { k: K, ef: 100 });
      let hit = 0;
      approx.forEach((h, q) => {
        const want = new Set(exact[q].map((x) => x.id));
        for (const x of h) if (want.has(x.id)) hit++;
      });
      expect(hit / 500, `${metric} bits ${bits}`).toBeGreaterThanOrEqual(0.85);
    }
  });

  it('inserts, upserts and deletes after the build; tombstones never come back; consolidation keeps recall', async () => {
    const col = await makeCol(hv, 4000);
    await col.buildIndex({ seed: 3 });
    // insert the next 1000 rows into the graph
    await col.add([...Array(1000).keys()].map((i) => 4000 + i), base.subarray(4000 * s.dim, 5000 * s.dim));
    expect(col.size).toBe(5000);
    const q = base.subarray(4500 * s.dim, 4501 * s.dim);
    expect((await col.search(q, { k: 1 }))[0].id).toBe(4500);
    // delete: the record disappears from results at once
    expect(await col.delete([4500])).toBe(1);
    expect((await col.search(q, { k: 5 })).map((h) => h.id)).not.toContain(4500);
    expect(col.stats().tombstones).toBe(1);
    // upsert moves a record: the old vector no longer finds it
    const far = base.subarray(10 * s.dim, 11 * s.dim);
    await col.upsert(4501, far);
    expect((await col.search(far, { k: 1 }))[0].distance).toBeCloseTo(0, 5);
    // delete 15 % to trigger consolidation, which compacts the tombstones away
    const del = [...Array(750).keys()].map((i) => i * 5);
    expect(await col.delete(del)).toBe(750);
    expect(col.stats().tombstones).toBeLessThan(500);
    expect(col.size).toBe(5000 - 751);
    const ids = new Set(del);
    for (const h of (await col.searchBatch(queries.subarray(0, 50 * s.dim), { k: K })).flat()) {
      expect(ids.has(h.id as number)).toBe(false);
    }
    expect(await recall(col, 64)).toBeGreaterThanOrEqual(0.9);
    expect(col.get(4501)?.vector).toEqual(Float32Array.from(far));
  });

  it('keeps recall through churn: 10 rounds of delete 10 % + insert 10 %', async () => {
    const n = 3000;
    const col = await makeCol(hv, n);
    await col.buildIndex({ seed: 11 });
    const live = new Set([...Array(n).keys()]);
    let next = n;
    for (let round = 0; round < 10; round++) {
      const victims = [...live].filter((_, i) => i % 10 === round % 10).slice(0, n / 10);
      await col.delete(victims);
      victims.forEach((v) => live.delete(v));
      const add = [...Array(n / 10).keys()].map(() => next++);
      // reinsert rows of the sample beyond the first n (real data), cycling through the base
      const vecs = new Float32Array(add.length * s.dim);
      add.forEach((id, i) => vecs.set(s.base.subarray((id % s.n) * s.dim, (id % s.n + 1) * s.dim), i * s.dim));
      await col.add(add, vecs);
      add.forEach((a) => live.add(a));
    }
    expect(col.size).toBe(n);
    const churned = await recall(col, 48);
    // fresh build over the same records
    const fresh = hv.Collection.create({ dim: s.dim, metric: 'cosine' });
    const ids = [...live].sort((a, b) => a - b);
    const vecs = new Float32Array(ids.length * s.dim);
    ids.forEach((id, i) => vecs.set(col.get(id)!.vector, i * s.dim));
    await fresh.add(ids, vecs);
    await fresh.buildIndex({ seed: 11 });
    const freshRecall = await recall(fresh, 48);
    expect(churned).toBeGreaterThanOrEqual(freshRecall - 0.02);
  });

  it('validates build options and honours cancellation', async () => {
    const col = await makeCol(hv, 3000);
    await expectCode(col.buildIndex({ kind: 'hnsw' as never }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.buildIndex({ R: 0 }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.buildIndex({ bits: 9 }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.buildIndex({ alpha: 0.5 }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.buildIndex({ L: '64' as never }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.buildIndex({ nope: 1 } as never), 'HV_INVALID_ARGUMENT');
    await expectCode(col.search(queries.subarray(0, s.dim), { k: 1, ef: 0 }), 'HV_INVALID_ARGUMENT');
    const aborted = new AbortController();
    aborted.abort();
    await expectCode(col.buildIndex({ signal: aborted.signal }), 'HV_CANCELLED');
    const ac = new AbortController();
    await expectCode(col.buildIndex({ signal: ac.signal, onProgress: (d) => { if (d > 0) ac.abort(); } }), 'HV_CANCELLED');
    expect(col.stats().mode).toBe('exact'); // nothing installed
    expect(col.size).toBe(3000);
    if (name === 'native') {
      // a searchable collection while the build runs on worker threads
      const p = col.buildIndex({ seed: 2 });
      const during = await col.search(queries.subarray(0, s.dim), { k: 3 });
      expect(during).toHaveLength(3);
      await p;
      expect(col.stats().mode).toBe('vamana-rabitq1'); // the default width at 384 dims
    }
  });

  it('falls back to exact search on small collections and when asked', async () => {
    const col = hv.Collection.create({ dim: 8 });
    const data = randomVectors(500, 8, 5);
    await col.add([...Array(500).keys()], data);
    await col.buildIndex({ seed: 1 });
    const q = randomVectors(1, 8, 6);
    const a = await col.search(q, { k: 10, ef: 10 });
    const e = await col.search(q, { k: 10, exact: true });
    expect(a).toEqual(e); // under the flat threshold: exact
  });
});
