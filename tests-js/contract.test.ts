// The JS contract: the same cases run against the native and the wasm backend, and against
// `horosvec/inline` (the wasm build with its binary inside the JS), which keeps the wasm
// contract. It is imported first, so the wasm instance of this file is the one it decoded.
import * as inline from 'horosvec/inline';
import { describe, expect, it } from 'vitest';
import { backends, expectCode, randomVectors, refDistance, refTopK, type Api } from './helpers/backends.js';

const METRICS = ['l2', 'cosine', 'ip', 'l1'] as const;

const suites: [string, string, Api][] = [...backends.map(([n, api]): [string, string, Api] => [n, n, api]), ['inline', 'wasm', inline as unknown as Api]];

describe.each(suites)('%s backend', (_label, name, hv) => {
  it('reports its backend and kernel', () => {
    expect(hv.backend).toBe(name);
    expect(typeof hv.kernel).toBe('string');
    expect(hv.kernel.length).toBeGreaterThan(0);
    if (name === 'wasm') expect(hv.kernel).toBe('wasm-simd128');
    const col = hv.Collection.create({ dim: 4 });
    const s = col.stats();
    expect(s).toMatchObject({ size: 0, dim: 4, metric: 'l2', kernel: hv.kernel, mode: 'exact', backend: name, warmingSegments: 0, filtered: { scans: 0, codeScans: 0, twoHop: 0, walks: 0, fallbacks: 0 } });
    expect(s.threads).toBeGreaterThanOrEqual(1);
    expect(col.metric).toBe('l2');
    expect(col.dim).toBe(4);
  });

  it('accepts every input shape and gives the same answer', async () => {
    const dim = 3;
    const rows = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]];
    const flat = new Float32Array(rows.flat());
    const backing = new Float32Array(flat.length + 5);
    backing.set(flat, 5);
    const view = backing.subarray(5); // byte offset 20
    const shapes: unknown[] = [
      flat,
      new Float64Array(rows.flat()),
      rows.flat(),
      rows.map((r) => new Float32Array(r)),
      rows.map((r) => new Float64Array(r)),
      rows,
      view,
    ];
    const qBacking = new Float32Array([9, 9, 0.9, 0.1, 0.2]);
    const queries: unknown[] = [[0.9, 0.1, 0.2], new Float32Array([0.9, 0.1, 0.2]), new Float64Array([0.9, 0.1, 0.2]), qBacking.subarray(2)];
    let first: unknown;
    for (const shape of shapes) {
      const col = hv.Collection.create({ dim });
      await col.add(['a', 'b', 'c', 'd'], shape as Float32Array);
      expect(col.size).toBe(4);
      for (const q of queries) {
        const hits = await col.search(q as Float32Array, { k: 2 });
        first ??= hits;
        expect(hits).toEqual(first);
        expect(col.searchSync(q as Float32Array, { k: 2 })).toEqual(first);
      }
      const batchFlat = await col.searchBatch(new Float32Array([0.9, 0.1, 0.2, 0, 0, 1]), { k: 1 });
      const batchRows = await col.searchBatch([[0.9, 0.1, 0.2], new Float32Array([0, 0, 1])], { k: 1 });
      expect(batchFlat).toEqual(batchRows);
      expect(batchFlat[1][0].id).toBe('c');
    }
    expect((first as { id: string }[])[0].id).toBe('a');
    // A single id with a single vector.
    const col = hv.Collection.create({ dim });
    await col.add('solo', [1, 2, 3], { note: 'one' });
    expect(col.get('solo')).toEqual({ vector: new Float32Array([1, 2, 3]), metadata: { note: 'one' } });
  });

  it.each(METRICS)('exact search is exact (%s), single and batch', async (metric) => {
    const dim = 37; // odd: exercises kernel tails
    const n = 700;
    const data = randomVectors(n, dim, 42);
    const col = hv.Collection.create({ dim, metric });
    await col.add([...Array(n).keys()], data);
    const nq = 45; // not a multiple of 4 nor of the 32-query chunk
    const queries = randomVectors(nq, dim, 7);
    const k = 10;
    const batch = await col.searchBatch(queries, { k });
    expect(batch).toHaveLength(nq);
    for (let j = 0; j < nq; j++) {
      const q = queries.subarray(j * dim, (j + 1) * dim);
      const want = refTopK(metric, data, dim, q, k);
      const got = await col.search(q, { k });
      expect(got.map((h) => h.id)).toEqual(want.map((w) => w.row));
      got.forEach((h, i) => expect(h.distance).toBeCloseTo(want[i].d, 3));
      expect(batch[j].map((h) => h.id)).toEqual(got.map((h) => h.id));
      batch[j].forEach((h, i) => expect(h.distance).toBeCloseTo(got[i].distance, 4));
    }
  });

  it('reports distances in the documented units (lower is closer)', async () => {
    const q = [1, 2, 2];
    const x = [0, 2, 4];
    for (const metric of METRICS) {
      const col = hv.Collection.create({ dim: 3, metric });
      await col.add(1, x);
      const [hit] = col.searchSync(q, { k: 1 });
      expect(hit.distance).toBeCloseTo(refDistance(metric, q, x), 5);
    }
    const l2 = hv.Collection.create({ dim: 3, metric: 'l2' });
    await l2.add(1, x);
    expect(l2.searchSync(q, { k: 1 })[0].distance).toBeCloseTo(5, 5); // squared: 1 + 0 + 4
  });

  it('handles k edge cases', async () => {
    const col = hv.Collection.create({ dim: 2 });
    expect(await col.search([0, 0], { k: 5 })).toEqual([]);
    await col.add([1, 2, 3], [[0, 0], [1, 1], [2, 2]]);
    expect((await col.search([0, 0], { k: 1 })).map((h) => h.id)).toEqual([1]);
    expect((await col.search([0, 0], { k: 3 })).map((h) => h.id)).toEqual([1, 2, 3]);
    expect((await col.search([0, 0], { k: 1000 })).map((h) => h.id)).toEqual([1, 2, 3]);
    expect((await col.searchBatch([[0, 0]], { k: 2 ** 40 }))[0]).toHaveLength(3);
    for (const k of [0, -1, 1.5, NaN, Infinity, '3', undefined, null]) {
      await expectCode(col.search([0, 0], { k: k as number }), 'HV_INVALID_ARGUMENT');
      await expectCode(() => col.searchSync([0, 0], { k: k as number }), 'HV_INVALID_ARGUMENT');
      await expectCode(col.searchBatch([[0, 0]], { k: k as number }), 'HV_INVALID_ARGUMENT');
    }
    await expectCode(col.search([0, 0], undefined as never), 'HV_INVALID_ARGUMENT');
  });

  it('keeps ids of both types, each as it went in', async () => {
    const col = hv.Collection.create({ dim: 1 });
    await col.add([7, '7', 0, '', Number.MAX_SAFE_INTEGER], [[1], [2], [3], [4], [5]]);
    expect(col.get(7)?.vector[0]).toBe(1);
    expect(col.get('7')?.vector[0]).toBe(2);
    expect(col.get('')?.vector[0]).toBe(4);
    expect(col.get(8)).toBeUndefined();
    const ids = (await col.search([0], { k: 5 })).map((h) => h.id);
    expect(ids).toEqual([7, '7', 0, '', Number.MAX_SAFE_INTEGER]);
    expect(typeof ids[0]).toBe('number');
    expect(typeof ids[1]).toBe('string');
    for (const bad of [-1, 1.5, 2 ** 53, NaN, Infinity]) {
      await expectCode(col.add([bad], [[1]]), 'HV_INVALID_ARGUMENT');
      await expectCode(() => col.get(bad), 'HV_INVALID_ARGUMENT');
    }
    for (const bad of [{}, null, undefined, true, 10n]) {
      await expectCode(col.add([bad as never], [[1]]), 'HV_INVALID_ARGUMENT');
    }
    expect(col.size).toBe(5);
  });

  it('round-trips metadata', async () => {
    const col = hv.Collection.create({ dim: 2 });
    const meta = [{ title: 'x', tags: ['a', 'b'], n: 1.5, nested: { ok: true, none: null } }, undefined, 'text', 42, [1, 2], null];
    await col.add(['a', 'b', 'c', 'd', 'e', 'f'], [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5]], meta);
    expect(col.get('a')?.metadata).toEqual(meta[0]);
    expect(col.get('b')?.metadata).toBeUndefined();
    expect(col.get('c')?.metadata).toBe('text');
    expect(col.get('d')?.metadata).toBe(42);
    expect(col.get('f')?.metadata).toBeUndefined();
    const hits = await col.search([0, 0], { k: 4 });
    expect(hits[0]).toEqual({ id: 'a', distance: 0, metadata: meta[0] });
    expect(hits[1]).toEqual({ id: 'b', distance: 1 });
    expect('metadata' in hits[1]).toBe(false);
    const bare = await col.search([0, 0], { k: 1, includeMetadata: false });
    expect(bare[0]).toEqual({ id: 'a', distance: 0 });
    await expectCode(col.add(['x'], [[1, 1]], [10n]), 'HV_INVALID_ARGUMENT');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expectCode(col.add(['x'], [[1, 1]], [cyclic]), 'HV_INVALID_ARGUMENT');
    await expectCode(col.add(['x', 'y'], [[1, 1], [2, 2]], [{}]), 'HV_INVALID_ARGUMENT');
    await expectCode(col.add(['x'], [[1, 1]], [() => 1]), 'HV_INVALID_ARGUMENT');
    expect(col.size).toBe(6);
  });

  it('breaks ties by insertion order, deterministically, across deletes and upserts', async () => {
    const col = hv.Collection.create({ dim: 2 });
    const ids = ['e', 'd', 'c', 'b', 'a'];
    await col.add(ids, ids.map(() => [1, 1]));
    expect((await col.search([0, 0], { k: 5 })).map((h) => h.id)).toEqual(ids);
    expect(await col.delete(['d'])).toBe(1); // moves the last row into d's place
    expect((await col.search([0, 0], { k: 5 })).map((h) => h.id)).toEqual(['e', 'c', 'b', 'a']);
    await col.upsert(['e'], [[1, 1]], [{ v: 2 }]); // replaced, keeps its place
    expect((await col.search([0, 0], { k: 2 })).map((h) => h.id)).toEqual(['e', 'c']);
    await col.add(['z'], [[1, 1]]);
    expect((await col.searchBatch([[0, 0], [5, 5]], { k: 5 })).map((r) => r.map((h) => h.id))).toEqual([
      ['e', 'c', 'b', 'a', 'z'],
      ['e', 'c', 'b', 'a', 'z'],
    ]);
  });

  it('upserts, deletes and gets', async () => {
    const col = hv.Collection.create({ dim: 2, metric: 'cosine' });
    await col.add([1, 2], [[1, 0], [0, 1]], [{ v: 1 }, { v: 2 }]);
    await col.upsert([2, 3], [[1, 1], [3, 4]], [{ v: 'new' }, undefined]);
    expect(col.size).toBe(3);
    expect(col.get(2)).toEqual({ vector: new Float32Array([1, 1]), metadata: { v: 'new' } });
    expect(col.get(3)).toEqual({ vector: new Float32Array([3, 4]), metadata: undefined });
    await col.upsert(1, [2, 0]); // whole record replaced: metadata cleared
    expect(col.get(1)).toEqual({ vector: new Float32Array([2, 0]), metadata: undefined });
    expect(await col.delete([1, 1, 'nope', 99])).toBe(1);
    expect(await col.delete(2)).toBe(1);
    expect(col.get(1)).toBeUndefined();
    expect(col.size).toBe(1);
    expect((await col.search([3, 4], { k: 3 })).map((h) => h.id)).toEqual([3]);
    await col.add(1, [1, 0]); // a deleted id can be added again
    expect(col.size).toBe(2);
  });

  it('rejects bad input with stable codes and loses nothing', async () => {
    const col = hv.Collection.create({ dim: 3, metric: 'cosine' });
    await col.add(['keep'], [[1, 2, 3]], [{ keep: true }]);
    const intact = async () => {
      expect(col.size).toBe(1);
      expect(col.get('keep')).toEqual({ vector: new Float32Array([1, 2, 3]), metadata: { keep: true } });
      expect((await col.search([1, 2, 3], { k: 1 }))[0].id).toBe('keep');
    };
    // dimension
    await expectCode(col.add(['x'], [1, 2]), 'HV_DIM_MISMATCH');
    await expectCode(col.add(['x', 'y'], [1, 2, 3, 4, 5]), 'HV_DIM_MISMATCH');
    await expectCode(col.add(['x', 'y'], [[1, 2, 3], [1, 2]]), 'HV_DIM_MISMATCH');
    await expectCode(col.upsert(['keep'], [1, 2, 3, 4]), 'HV_DIM_MISMATCH');
    await expectCode(col.search([1, 2], { k: 1 }), 'HV_DIM_MISMATCH');
    await expectCode(() => col.searchSync([1, 2, 3, 4], { k: 1 }), 'HV_DIM_MISMATCH');
    await expectCode(col.searchBatch([1, 2, 3, 4], { k: 1 }), 'HV_DIM_MISMATCH');
    await expectCode(col.searchBatch([[1, 2, 3], [1]], { k: 1 }), 'HV_DIM_MISMATCH');
    // values
    for (const bad of [NaN, Infinity, -Infinity]) {
      await expectCode(col.add(['x', 'y'], [[1, 2, 3], [1, bad, 3]]), 'HV_INVALID_VECTOR');
      await expectCode(col.upsert(['keep'], [[bad, 2, 3]]), 'HV_INVALID_VECTOR');
      await expectCode(col.search([bad, 1, 1], { k: 1 }), 'HV_INVALID_VECTOR');
      await expectCode(col.searchBatch([[1, 1, 1], [1, 1, bad]], { k: 1 }), 'HV_INVALID_VECTOR');
    }
    // cosine: a zero vector has no direction; accepted, at distance 1 from every query (hnswlib's convention)
    await col.add(['zero'], [[0, 0, 0]]);
    const z = await col.search([1, 2, 3], { k: 100 });
    expect(z.find((h) => h.id === 'zero')?.distance).toBe(1);
    expect((await col.search([0, 0, 0], { k: 100 })).every((h) => h.distance === 1)).toBe(true);
    await col.delete(['zero']);
    await expectCode(col.add(['x'], ['a', 'b', 'c'] as never), 'HV_INVALID_ARGUMENT');
    await expectCode(col.add(['x'], 'abc' as never), 'HV_INVALID_ARGUMENT');
    await expectCode(col.search('abc' as never, { k: 1 }), 'HV_INVALID_ARGUMENT');
    // ids and counts
    await expectCode(col.add(['keep'], [[3, 2, 1]]), 'HV_DUPLICATE_ID');
    await expectCode(col.add(['n1', 'n1'], [[1, 1, 1], [2, 2, 2]]), 'HV_DUPLICATE_ID');
    // (an upsert naming an id twice keeps the last one: tests-js/filter.test.ts)
    await expectCode(col.add([], []), 'HV_INVALID_ARGUMENT');
    await expectCode(col.upsert([], new Float32Array(0)), 'HV_INVALID_ARGUMENT');
    await expectCode(col.add(['a', 'b'], [[1, 1, 1]]), 'HV_INVALID_ARGUMENT');
    await expectCode(col.searchBatch([], { k: 1 }), 'HV_INVALID_ARGUMENT');
    await intact();
    // A failing batch applies nothing, even when its first rows were fine.
    await expectCode(col.add(['ok1', 'ok2', 'keep'], [[1, 1, 1], [2, 2, 2], [3, 3, 3]]), 'HV_DUPLICATE_ID');
    expect(col.get('ok1')).toBeUndefined();
    await intact();
  });

  it('rejects bad collection options', async () => {
    for (const dim of [0, -3, 1.5, NaN, 70000, '3']) {
      await expectCode(() => hv.Collection.create({ dim: dim as number }), 'HV_INVALID_ARGUMENT');
    }
    await expectCode(() => hv.Collection.create({ dim: 3, metric: 'euclid' as never }), 'HV_INVALID_ARGUMENT');
    await expectCode(() => hv.Collection.create(undefined as never), 'HV_INVALID_ARGUMENT');
    await expectCode(() => new (hv.Collection as unknown as new () => unknown)(), 'HV_INVALID_ARGUMENT');
  });

  it('throws HV_CLOSED after close, from every method', async () => {
    const col = hv.Collection.create({ dim: 2 });
    await col.add([1], [[1, 1]]);
    await col.close();
    await col.close(); // twice is fine
    await expectCode(() => col.size, 'HV_CLOSED');
    await expectCode(() => col.dim, 'HV_CLOSED');
    await expectCode(() => col.metric, 'HV_CLOSED');
    await expectCode(() => col.stats(), 'HV_CLOSED');
    await expectCode(() => col.get(1), 'HV_CLOSED');
    await expectCode(() => col.searchSync([1, 1], { k: 1 }), 'HV_CLOSED');
    await expectCode(col.search([1, 1], { k: 1 }), 'HV_CLOSED');
    await expectCode(col.searchBatch([[1, 1]], { k: 1 }), 'HV_CLOSED');
    await expectCode(col.add([2], [[1, 1]]), 'HV_CLOSED');
    await expectCode(col.upsert([2], [[1, 1]]), 'HV_CLOSED');
    await expectCode(col.delete([1]), 'HV_CLOSED');
    await expectCode(col.deleteWhere({}), 'HV_CLOSED');
    await expectCode(col.count(), 'HV_CLOSED');
    await expectCode(col.list(), 'HV_CLOSED');
  });

  it('returns Promises from async methods, also when they fail', async () => {
    const col = hv.Collection.create({ dim: 2 });
    const p = col.search([1, 1], { k: 0 });
    expect(p).toBeInstanceOf(Promise);
    await expectCode(p, 'HV_INVALID_ARGUMENT');
    const a = col.add([1], [[1]]);
    expect(a).toBeInstanceOf(Promise);
    await expectCode(a, 'HV_DIM_MISMATCH');
    for (const q of [col.count({ $x: 1 } as never), col.list({ limit: 0 }), col.deleteWhere({ a: { $bad: 1 } } as never)]) {
      expect(q).toBeInstanceOf(Promise);
      await expectCode(q, 'HV_INVALID_ARGUMENT');
    }
  });

  it('serves concurrent searches and writes consistently', async () => {
    const dim = 16;
    const col = hv.Collection.create({ dim });
    const data = randomVectors(2000, dim, 3);
    await col.add([...Array(2000).keys()], data);
    const q = data.subarray(5 * dim, 6 * dim);
    const ops: Promise<unknown>[] = [];
    for (let i = 0; i < 50; i++) {
      ops.push(col.search(q, { k: 1 }).then((h) => expect(h[0].id).toBe(5)));
      ops.push(col.add([10_000 + i], randomVectors(1, dim, 100 + i)));
    }
    await Promise.all(ops);
    expect(col.size).toBe(2050);
  });

  it('keeps call order for writes and lets reads see earlier writes', async () => {
    for (let i = 0; i < 30; i++) {
      const col = hv.Collection.create({ dim: 2 });
      const big = randomVectors(5000, 2, i);
      const p1 = col.add([...Array(5000).keys()], big);
      const p2 = col.add('x', [1, 1]);
      const p3 = col.delete(['x']);
      const p4 = col.upsert('u', [1, 0]);
      const p5 = col.upsert('u', [0, 1]);
      const seen = col.search([0, 1], { k: 1 });
      await Promise.all([p1, p2, p3, p4, p5]);
      expect(col.get('x')).toBeUndefined();
      expect(col.get('u')?.vector).toEqual(new Float32Array([0, 1]));
      expect((await seen)[0].id).toBe('u');
      const pending = col.add('late', [5, 5]);
      await col.close(); // waits for the call already made
      await expect(pending).resolves.toBeUndefined();
    }
  });

  it('copies inputs at call time: changing the buffer afterwards changes nothing', async () => {
    const col = hv.Collection.create({ dim: 4 });
    const buf = new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]);
    const p = col.add([1, 2], buf);
    const q = col.add([3], buf.subarray(4));
    buf.fill(NaN);
    await Promise.all([p, q]);
    expect(col.get(2)?.vector).toEqual(new Float32Array([5, 6, 7, 8]));
    expect(col.get(3)?.vector).toEqual(new Float32Array([5, 6, 7, 8]));
    const query = new Float32Array([1, 2, 3, 4]);
    const s = col.search(query, { k: 1 });
    query.fill(100);
    expect((await s)[0].id).toBe(1);
  });

  it('computes cosine safely for huge and tiny magnitudes', async () => {
    const col = hv.Collection.create({ dim: 2, metric: 'cosine' });
    await col.add(['x', 'y'], [[1, 0], [0, 1]]);
    for (const q of [[1e-30, 0], [1e20, 0], [3e38, 0]]) {
      const hits = await col.search(q, { k: 2 });
      expect(hits[0].id).toBe('x');
      expect(hits[0].distance).toBeCloseTo(0, 6);
      expect(hits[1].distance).toBeCloseTo(1, 6);
    }
    // a norm below 1e-30 (here subnormal in f32) is scored exactly in f64: its direction counts
    await col.add('tiny', [1e-40, 0]);
    const t = await col.search([1e-40, 0], { k: 3 });
    expect(t.slice(0, 2).map((h) => h.id).sort()).toEqual(['tiny', 'x']);
    expect(t[0].distance).toBeCloseTo(0, 6);
    expect(t[1].distance).toBeCloseTo(0, 6);
    await col.delete('tiny');
    await col.add('big', [3e38, 3e38]);
    const self = await col.search([0.6, 0.6], { k: 3 });
    expect(self[0].id).toBe('big');
    for (const h of self) expect(h.distance).toBeGreaterThanOrEqual(0);
    expect(col.size).toBe(3);
  });

  it('ranks overflowing (NaN) distances last', async () => {
    const col = hv.Collection.create({ dim: 2, metric: 'ip' });
    await col.add(['nan', 'a'], [[3e38, -3e38], [1, 1]]);
    const hits = await col.search([3e38, 3e38], { k: 2 });
    expect(hits.map((h) => h.id)).toEqual(['a', 'nan']);
    expect(hits[1].distance).toBe(Infinity);
  });

  it('rejects ids that are not well-formed strings, and bad option types', async () => {
    const col = hv.Collection.create({ dim: 1 });
    await expectCode(col.add(['\uD800', '\uDC00'], [[1], [2]]), 'HV_INVALID_ARGUMENT');
    await expectCode(col.add('\uDC00x', [1]), 'HV_INVALID_ARGUMENT');
    await expectCode(() => col.get('\uD800'), 'HV_INVALID_ARGUMENT');
    await col.add('\uD83D\uDE00', [1]); // a valid surrogate pair (an emoji) is fine
    expect(col.get('\uD83D\uDE00')?.vector[0]).toBe(1);
    await expectCode(col.search([1], { k: 1, includeMetadata: 0 as never }), 'HV_INVALID_ARGUMENT');
    // an array-like object is a vector
    await col.add('al', { length: 1, 0: 7 } as ArrayLike<number>);
    expect(col.get('al')?.vector[0]).toBe(7);
  });

  it('names the batch shape in dimension errors', async () => {
    const col = hv.Collection.create({ dim: 3 });
    let msg = '';
    try {
      await col.add(['a', 'b'], [1, 2, 3, 4, 5]);
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/5 values/);
    expect(msg).toMatch(/dim 3/);
  });
});
