// toBytes / fromBytes: one versioned binary snapshot that loads on both backends, index included.
import { crc32 } from 'node:zlib';
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
    for (const version of [0, 5]) {
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

describe.each(backends)('%s: tampered codes of a version-2 snapshot', (_, hv) => {
  it('give HV_CORRUPT even with a valid checksum (a NaN factor, another seed)', async () => {
    const dim = s.dim;
    const n = 2_100;
    const col = hv.Collection.create({ dim, metric: 'cosine' });
    await col.add([...Array(n).keys()], base.subarray(0, n * dim));
    await col.buildIndex({ seed: 9 });
    const good = await col.toBytes();
    const other = hv.Collection.create({ dim, metric: 'cosine' });
    await other.add([...Array(n).keys()], base.subarray(0, n * dim));
    await other.buildIndex({ seed: 10 });
    const theirs = await other.toBytes();
    /** Start of the codes section (centroid, record width W, n × W u64) before the CRC. */
    const codesAt = (b: Uint8Array) => {
      const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
      for (let w = 1; w <= 256; w++) {
        const at = b.length - 4 - (n * w * 8 + 4 + 4 * dim);
        if (at > 0 && v.getUint32(at + 4 * dim, true) === w) return at;
      }
      throw new Error('no codes section');
    };
    const withCrc = (body: Uint8Array) => {
      const out = new Uint8Array(body.length + 4);
      out.set(body);
      new DataView(out.buffer).setUint32(body.length, crc32(body) >>> 0, true);
      return out;
    };
    expect((await hv.Collection.fromBytes(withCrc(good.subarray(0, good.length - 4)))).size).toBe(n);
    const nanFactor = good.slice(0, good.length - 4);
    new DataView(nanFactor.buffer).setFloat32(nanFactor.length - 4, Number.NaN, true);
    await expectCode(hv.Collection.fromBytes(withCrc(nanFactor)), 'HV_CORRUPT');
    // the codes section of the same rows indexed with another seed: every size matches
    const swapped = new Uint8Array(good.length - 4);
    swapped.set(good.subarray(0, codesAt(good)));
    swapped.set(theirs.subarray(codesAt(theirs), theirs.length - 4), codesAt(good));
    await expectCode(hv.Collection.fromBytes(withCrc(swapped)), 'HV_CORRUPT');
  });
});

