// toBytes / fromBytes: one versioned binary snapshot that loads on both backends, index included.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backends, expectCode } from './helpers/backends.js';
import { loadSample } from './helpers/sample.js';

const s = loadSample();
const N = 3000;
const NQ = 50;
const base = s.base.subarray(0, N * s.dim);
const queries = s.queries.data.subarray(0, NQ * s.dim);

function recallOf(approx: { id: unknown }[][], exact: { id: unknown }[][]): number {
  let hit = 0;
  approx.forEach((h, q) => {
    const want = new Set(exact[q].map((x) => x.id));
    for (const x of h) if (want.has(x.id)) hit++;
  });
  return hit / (approx.length * 10);
}

describe.each(backends)('snapshot made by the %s backend', (_, from) => {
  it.each(backends)('loads on %s with records, metadata, ids and the index', async (__, to) => {
    const col = from.Collection.create({ dim: s.dim, metric: 'cosine' });
    const ids = [...Array(N).keys()].map((i) => (i % 3 === 0 ? `s${i}` : i));
    await col.add(ids, base, ids.map((id) => ({ id })));
    await col.buildIndex({ seed: 9 });
    await col.delete([1, 2]); // a tombstone: consolidated into the snapshot
    const bytes = await col.toBytes();
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(bytes.subarray(0, 8))).toBe('HVSNAP01');
    const loaded = await to.Collection.fromBytes(bytes);
    expect(loaded.size).toBe(N - 2);
    expect(loaded.stats().mode).toBe(col.stats().mode);
    expect(loaded.get('s3')).toEqual({ vector: base.slice(3 * s.dim, 4 * s.dim), metadata: { id: 's3' } });
    expect(loaded.get(4)?.metadata).toEqual({ id: 4 });
    expect(loaded.get(1)).toBeUndefined();
    const exactA = await col.searchBatch(queries, { k: 10, exact: true });
    const exactB = await loaded.searchBatch(queries, { k: 10, exact: true });
    if (from === to) {
      expect(exactB).toEqual(exactA);
    } else {
      // the backends' kernels round differently (FMA or not): same neighbours, distances equal to ~1e-6
      expect(recallOf(exactB, exactA)).toBeGreaterThanOrEqual(0.99);
      exactA.forEach((h, q) => h.forEach((x, i) => expect(exactB[q][i].distance).toBeCloseTo(x.distance, 5)));
    }
    const approx = await loaded.searchBatch(queries, { k: 10, ef: 64 });
    expect(recallOf(approx, exactA)).toBeGreaterThanOrEqual(0.9);
    // a snapshot of the loaded collection is the same bytes
    expect(Buffer.from(await loaded.toBytes()).equals(Buffer.from(bytes))).toBe(true);
    await col.close();
    await loaded.close();
  });
});

describe.each(backends)('%s: bad snapshots', (_, hv) => {
  it('give HV_CORRUPT / HV_VERSION / HV_INVALID_ARGUMENT and never crash', async () => {
    const col = hv.Collection.create({ dim: 4 });
    await col.add(['a', 1], [[1, 2, 3, 4], [4, 3, 2, 1]], [{ x: 1 }, null]);
    const good = await col.toBytes();
    expect((await hv.Collection.fromBytes(good)).size).toBe(2);
    const flipped = good.slice();
    flipped[40] ^= 0x10;
    await expectCode(hv.Collection.fromBytes(flipped), 'HV_CORRUPT');
    for (const cut of [0, 5, 12, 30, good.length - 1]) {
      await expectCode(hv.Collection.fromBytes(good.subarray(0, cut)), 'HV_CORRUPT');
    }
    expect(good[8]).toBe(3); // format version 3 for f32 rows (versions 1 and 2 still load: core/tests/snapshot.rs; 4 is f16 rows: tests-js/f16.test.ts)
    for (const version of [0, 6]) {
      const other = good.slice();
      other[8] = version;
      await expectCode(hv.Collection.fromBytes(other), 'HV_VERSION');
    }
    await expectCode(hv.Collection.fromBytes(new TextEncoder().encode('HVSNAP01 but then garbage')), 'HV_VERSION');
    const garbage = new Uint8Array(64).fill(7);
    garbage.set(new TextEncoder().encode('HVSNAP01'));
    garbage.set([1, 0, 0, 0], 8);
    await expectCode(hv.Collection.fromBytes(garbage), 'HV_CORRUPT');
    await expectCode(hv.Collection.fromBytes([1, 2, 3] as never), 'HV_INVALID_ARGUMENT');
    // short string ids (the smallest records) round-trip
    const short = hv.Collection.create({ dim: 1 });
    await short.add(['', 'a', 7], [[1], [2], [3]]);
    const s2 = await hv.Collection.fromBytes(await short.toBytes());
    expect(s2.get('')?.vector).toEqual(Float32Array.from([1]));
    expect(s2.size).toBe(3);
    // an empty collection round-trips
    const empty = hv.Collection.create({ dim: 2, metric: 'ip' });
    const e = await hv.Collection.fromBytes(await empty.toBytes());
    expect(e.size).toBe(0);
    expect(e.metric).toBe('ip');
  });
});

describe.each(backends)('%s: damaged version-5 snapshots', (_, hv) => {
  // tampering with a recomputed checksum (graph edges, codes, id order, tombstones, the part
  // table): core/tests/snapshot_parts.rs, the same core code as in both builds
  it('give HV_CORRUPT or HV_VERSION and never crash', async () => {
    const dim = s.dim;
    const n = 2_100;
    const col = hv.Collection.create({ dim, metric: 'cosine' });
    await col.add([...Array(n).keys()], base.subarray(0, n * dim));
    await col.buildIndex({ seed: 9 });
    const good = await col.toBytes();
    expect(good[8]).toBe(5);
    expect((await hv.Collection.fromBytes(good)).size).toBe(n);
    const view = new DataView(good.buffer, good.byteOffset, good.byteLength);
    const image = Number(view.getBigUint64(64 + 8, true));
    expect(new TextDecoder().decode(good.subarray(image, image + 8))).toBe('HVSEG002');
    for (const at of [13, 40, 70, image + 20, image + 600, Math.floor(good.length / 2), good.length - 100, good.length - 2]) {
      const b = good.slice();
      b[at] ^= 0x21;
      await expectCode(hv.Collection.fromBytes(b), 'HV_CORRUPT');
    }
    for (const cut of [12, 63, 64, 100, image, Math.floor(good.length / 3), good.length - 8, good.length - 1]) {
      await expectCode(hv.Collection.fromBytes(good.subarray(0, cut)), 'HV_CORRUPT');
    }
    const v = good.slice();
    v[8] = 6;
    await expectCode(hv.Collection.fromBytes(v), 'HV_VERSION');
  });
});

describe.each(backends)('%s: a loaded version-5 snapshot', (_, hv) => {
  it('loads from a file, takes writes, and moves into memory for the index operations', async () => {
    const dim = s.dim;
    const n = 2_500;
    const ids = [...Array(n).keys()].map((i) => (i % 4 === 0 ? `k${i}` : i));
    const meta = ids.map((id, i) => ({ g: i % 5, id }));
    const col = hv.Collection.create({ dim, metric: 'cosine' });
    await col.add(ids, base.subarray(0, n * dim), meta);
    await col.buildIndex({ seed: 4 });
    const dir = mkdtempSync(join(tmpdir(), 'hv-snap-'));
    try {
      const file = join(dir, 'c.hvsnap');
      writeFileSync(file, await col.toBytes());
      const a = await hv.Collection.fromFile(file);
      // the file is not held: it may be removed or rewritten while the collection is open
      rmSync(file);
      const o = { k: 10, ef: 64 };
      expect(a.size).toBe(n);
      expect(await a.searchBatch(queries, o)).toEqual(await col.searchBatch(queries, o));
      expect(await a.count({ g: 2 })).toBe(await col.count({ g: 2 }));
      expect(a.stats().sealedSegments).toBe(1);
      // writes: adds beside the loaded part, an upsert and a delete of loaded records
      for (const c of [a, col]) {
        await c.add(['x1', 'x2'], base.subarray(n * dim, (n + 2) * dim), [{ g: 9 }, null]);
        await c.upsert(['k0'], base.subarray(5 * dim, 6 * dim), [{ g: 9 }]);
        await c.delete([1, 'x2']);
      }
      expect(a.size).toBe(col.size);
      expect(await a.get('k0')).toEqual(await col.get('k0'));
      expect(await a.get(1)).toBeUndefined();
      const exact = { k: 10, exact: true };
      expect(await a.searchBatch(queries, exact)).toEqual(await col.searchBatch(queries, exact));
      expect(await a.count({ g: 9 })).toBe(2);
      expect((await a.list({ filter: { g: 9 } })).records.map((r) => r.id).sort()).toEqual(['k0', 'x1']);
      // a snapshot of the written collection loads with the same records
      const b = await hv.Collection.fromBytes(await a.toBytes());
      expect(await b.searchBatch(queries, exact)).toEqual(await col.searchBatch(queries, exact));
      // exportGraph and buildIndex move the records into memory first
      const g = await (await hv.Collection.fromBytes(await col.toBytes())).exportGraph();
      expect(g.ids.length).toBe(col.size);
      await a.buildIndex({ seed: 4 });
      expect(a.stats().sealedSegments).toBe(0);
      expect(a.size).toBe(col.size);
      expect(recallOf(await a.searchBatch(queries, o), await col.searchBatch(queries, exact))).toBeGreaterThanOrEqual(0.9);
      await expectCode(hv.Collection.fromFile(join(dir, 'missing.hvsnap')), 'HV_IO');
      await expectCode(hv.Collection.fromFile('' as never), 'HV_INVALID_ARGUMENT');
      // a directory opens but cannot be read (the wasm build reads it inside its buffer's fill)
      await expectCode(hv.Collection.fromFile(dir), 'HV_IO');
      // a file cut short fails its checksum; the collections already open keep answering
      const bytes = await col.toBytes();
      writeFileSync(file, bytes.subarray(0, bytes.length - 100));
      await expectCode(hv.Collection.fromFile(file), 'HV_CORRUPT');
      writeFileSync(file, new Uint8Array(0));
      await expectCode(hv.Collection.fromFile(file), 'HV_CORRUPT');
      expect(await a.searchBatch(queries, exact)).toEqual(await col.searchBatch(queries, exact));
      for (const c of [a, b, col]) await c.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
