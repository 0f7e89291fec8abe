// Durable collections with `vectors: 'f16'` (native backend): rounded values through add /
// upsert / delete → seal → reopen → get / search; the precision kept by the collection (a reopen
// without `vectors` uses it, one naming the other precision is HV_INVALID_ARGUMENT); values
// outside the f16 range refused with nothing written; read-only views; recall@10 at equal ef
// within 0.003 of an f32 durable collection on the shipped sample. The wasm build's OPFS
// collections refuse f16 (HV_UNSUPPORTED).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as native from 'horosvec';
import * as wasm from 'horosvec/wasm';
import { expectCode, randomVectors, toHalf } from './helpers/backends.js';
import { loadSample } from './helpers/sample.js';

const root = mkdtempSync(join(tmpdir(), 'horosvec-f16d-'));
let n = 0;
const fresh = () => join(root, `c${n++}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const segmentPrecisionBytes = (dir: string) =>
  readdirSync(dir).filter((f) => f.endsWith('.hvseg')).map((f) => readFileSync(join(dir, f))[22]);

describe('durable collections with vectors: f16 (native)', () => {
  it('stores rounded rows through writes, seal and reopen; get and search read them', async () => {
    const dir = fresh();
    const dim = 12;
    const data = randomVectors(300, dim, 16);
    const half = toHalf(data);
    const col = await native.Collection.open(dir, { dim, metric: 'cosine', vectors: 'f16', maxMutableRecords: 1_000_000 });
    expect(col.stats().vectors).toBe('f16');
    await col.add([...Array(200).keys()], data.subarray(0, 200 * dim));
    expect(await col.seal()).toBe(200);
    await col.add([...Array(100).keys()].map((i) => 200 + i), data.subarray(200 * dim));
    await col.upsert(3, data.subarray(250 * dim, 251 * dim), { t: 'three' }); // a sealed record, replaced
    expect(await col.delete([5, 250])).toBe(2);
    expect(segmentPrecisionBytes(dir)).toEqual([1]);
    const q = randomVectors(5, dim, 99);
    const before = await col.searchBatch(q, { k: 10, exact: true });
    const beforeIndexed = await col.searchBatch(q, { k: 10 });
    await col.close();

    const again = await native.Collection.open(dir);
    expect(again.stats().vectors).toBe('f16');
    expect(again.size).toBe(298);
    expect(again.get(7)?.vector).toEqual(half.subarray(7 * dim, 8 * dim));
    expect(again.get(260)?.vector).toEqual(half.subarray(260 * dim, 261 * dim));
    expect(again.get(3)).toEqual({ vector: half.slice(250 * dim, 251 * dim), metadata: { t: 'three' } });
    expect(again.get(5)).toBeUndefined();
    expect(await again.searchBatch(q, { k: 10, exact: true })).toEqual(before);
    expect((await again.searchBatch(q, { k: 10 })).map((h) => h.map((x) => x.id))).toEqual(beforeIndexed.map((h) => h.map((x) => x.id)));
    // exact search ranks the rounded rows exactly
    const ids = (await again.search(half.subarray(40 * dim, 41 * dim), { k: 1, exact: true })).map((h) => h.id);
    expect(ids).toEqual([40]);
    // a compaction and a seal of the rest write f16 segment files too
    await again.seal();
    await again.compact();
    expect(segmentPrecisionBytes(dir).every((b) => b === 1)).toBe(true);
    expect(again.get(260)?.vector).toEqual(half.subarray(260 * dim, 261 * dim));
    // a read-only view opens the f16 collection
    const view = await native.Collection.open(dir, { readOnly: true });
    expect(view.stats().vectors).toBe('f16');
    expect(view.size).toBe(298);
    expect(view.get(7)?.vector).toEqual(half.subarray(7 * dim, 8 * dim));
    await view.close();
    await again.close();
  });

  it('keeps the precision chosen at creation: the other one is HV_INVALID_ARGUMENT, nothing changed', async () => {
    const h = fresh();
    const c16 = await native.Collection.open(h, { dim: 4, vectors: 'f16' });
    await c16.add(1, [0.1, 0.2, 0.3, 0.4]);
    await c16.close();
    await expectCode(native.Collection.open(h, { vectors: 'f32' }), 'HV_INVALID_ARGUMENT');
    await expectCode(native.Collection.open(h, { dim: 4, vectors: 'f32', readOnly: true }), 'HV_INVALID_ARGUMENT');
    const again = await native.Collection.open(h, { vectors: 'f16' });
    expect(again.stats().vectors).toBe('f16');
    expect(again.size).toBe(1);
    await again.close();

    const f = fresh();
    const c32 = await native.Collection.open(f, { dim: 4 });
    await c32.add(1, [0.1, 0.2, 0.3, 0.4]);
    await c32.close();
    const err = await native.Collection.open(f, { vectors: 'f16' }).then(() => null, (e: { code: string; message: string }) => e);
    expect(err?.code).toBe('HV_INVALID_ARGUMENT');
    expect(err?.message).toMatch(/f32.*f16|f16.*f32/);
    const back = await native.Collection.open(f);
    expect(back.stats().vectors).toBe('f32');
    expect(back.get(1)?.vector).toEqual(Float32Array.from([0.1, 0.2, 0.3, 0.4]));
    await back.close();
    await expectCode(native.Collection.open(fresh(), { dim: 4, vectors: 'f64' as never }), 'HV_INVALID_ARGUMENT');
  });

  it('refuses values outside the f16 range with HV_INVALID_VECTOR and writes nothing', async () => {
    const dir = fresh();
    const col = await native.Collection.open(dir, { dim: 4, vectors: 'f16' });
    await col.add(1, [1, 2, 3, 4]);
    await expectCode(col.add([2, 3], [[1, 1, 1, 1], [1, 7e4, 1, 1]]), 'HV_INVALID_VECTOR');
    await expectCode(col.upsert(1, [-1e5, 0, 0, 1]), 'HV_INVALID_VECTOR');
    expect(col.size).toBe(1);
    expect(col.get(1)?.vector).toEqual(Float32Array.from([1, 2, 3, 4]));
    await col.close();
    const again = await native.Collection.open(dir);
    expect(again.size).toBe(1);
    expect(again.get(2)).toBeUndefined();
    expect(again.get(1)?.vector).toEqual(Float32Array.from([1, 2, 3, 4]));
    await again.close();
  });

  it('has recall@10 within 0.003 of an f32 durable collection at equal ef on the shipped sample', async () => {
    const s = loadSample();
    const K = 10;
    const ids = [...Array(s.n).keys()];
    const recall = async (vectors: 'f32' | 'f16') => {
      const col = await native.Collection.open(fresh(), { dim: s.dim, metric: 'cosine', vectors, maxMutableRecords: 1_000_000 });
      await col.add(ids, s.base);
      expect(await col.seal()).toBe(s.n);
      const hits = await col.searchBatch(s.queries.data, { k: K, ef: 64 });
      let found = 0;
      hits.forEach((h, q) => {
        const want = new Set(Array.from(s.gt.data.subarray(q * s.gt.dim, q * s.gt.dim + K)));
        for (const x of h) if (want.has(x.id as number)) found++;
      });
      expect(col.stats().vectors).toBe(vectors);
      await col.close();
      return found / (hits.length * K);
    };
    const r32 = await recall('f32');
    const r16 = await recall('f16');
    expect(r32).toBeGreaterThan(0.9);
    expect(Math.abs(r16 - r32)).toBeLessThanOrEqual(0.003);
  }, 300_000);
});
