// Regression tests for the defects of issue 12 (a break-it pass at 1af4746), on both backends
// where they apply. Each failed before its fix; the core-level twins are in
// core/tests/regressions.rs.
import { mkdtempSync, readdirSync, rmSync, truncateSync, unlinkSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backends, expectCode, randomVectors } from './helpers/backends.js';

const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'horosvec-regress-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Overwrites the u32 at `at` and recomputes the snapshot's trailing CRC-32. */
function forge(bytes: Uint8Array, at: number, value: number): Uint8Array {
  const b = bytes.slice();
  new DataView(b.buffer).setUint32(at, value, true);
  let c = ~0;
  for (let i = 0; i < b.length - 4; i++) {
    c ^= b[i];
    for (let j = 0; j < 8; j++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  new DataView(b.buffer).setUint32(b.length - 4, ~c >>> 0, true);
  return b;
}

for (const [name, api] of backends) {
  describe(`issue 12 regressions (${name})`, () => {
    it('2. a huge k or ef is bounded by the collection: every record comes back, the process lives', async () => {
      for (const n of [3, 2_500]) {
        const col = api.Collection.create({ dim: 8 });
        const v = randomVectors(n, 8, 11);
        await col.add(Array.from({ length: n }, (_, i) => i), v);
        await col.buildIndex();
        const q = v.subarray(0, 8);
        for (const o of [{ k: 2 ** 32 }, { k: Number.MAX_SAFE_INTEGER }, { k: 5, ef: 1e9 }, { k: 2 ** 32, ef: 1e15 }]) {
          const want = Math.min(n, o.k);
          expect(col.searchSync(q, o)).toHaveLength(want);
          expect(await col.search(q, o)).toHaveLength(want);
          expect((await col.searchBatch([q, q], o))[1]).toHaveLength(want);
        }
        // and the collection keeps working
        expect(col.searchSync(q, { k: 1 })[0].id).toBe(0);
        await col.upsert(1, v.subarray(8, 16));
        await col.close();
      }
    });

    it('5. a snapshot whose L (or another index parameter) is out of the API range is HV_CORRUPT', async () => {
      const col = api.Collection.create({ dim: 4 });
      const v = randomVectors(300, 4, 3);
      await col.add(Array.from({ length: 300 }, (_, i) => i), v);
      await col.buildIndex();
      const bytes = await col.toBytes();
      // the index section starts with R = 32, L = 64 (u32 LE) right after the records
      const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      let at = -1;
      for (let i = bytes.length - 8; i >= 0; i--) {
        if (dv.getUint32(i, true) === 32 && dv.getUint32(i + 4, true) === 64) {
          at = i;
          break;
        }
      }
      expect(at).toBeGreaterThan(0);
      for (const [off, value] of [[4, 0xffffffff], [4, 100_001], [12, 9]]) {
        // L, L, passes
        await expectCode(api.Collection.fromBytes(forge(bytes, at + off, value)), 'HV_CORRUPT');
      }
      // the untampered bytes still load and take writes
      const back = await api.Collection.fromBytes(bytes);
      await back.add(1_000, v.subarray(0, 4));
      expect(back.size).toBe(301);
    });

    it('6. cosine distances of huge finite vectors are exact', async () => {
      const dim = 16;
      const huge = new Float32Array(dim).fill(3e38);
      const mixed = new Float32Array(dim).fill(1);
      mixed[0] = 3e38;
      mixed[1] = -3e38;
      const q = Float32Array.from({ length: dim }, (_, i) => 1 + i);
      const exact = (a: Float32Array, b: Float32Array) => {
        let d = 0, na = 0, nb = 0;
        for (let i = 0; i < a.length; i++) {
          d += a[i] * b[i];
          na += a[i] * a[i];
          nb += b[i] * b[i];
        }
        return 1 - d / (Math.sqrt(na) * Math.sqrt(nb));
      };
      const col = api.Collection.create({ dim, metric: 'cosine' });
      await col.add(['huge', 'mixed', 'same'], [huge, mixed, q]);
      for (const hits of [col.searchSync(q, { k: 3 }), (await col.searchBatch([q, q], { k: 3 }))[1]]) {
        expect(hits[0].id).toBe('same');
        const by = Object.fromEntries(hits.map((h) => [h.id, h.distance]));
        expect(by.same).toBeLessThan(1e-6);
        expect(by.huge).toBeCloseTo(exact(huge, q), 5);
        expect(by.mixed).toBeCloseTo(exact(mixed, q), 5);
      }
    });

    if (name === 'native') {
      it('1. a 0-byte collection.db beside sealed segments is HV_CORRUPT and removes no segment', async () => {
        const dir = fresh();
        const col = await api.Collection.open(dir, { dim: 4 });
        await col.add(Array.from({ length: 300 }, (_, i) => i), randomVectors(300, 4, 1));
        await col.seal();
        await col.close();
        const segs = () => readdirSync(dir).filter((f) => f.startsWith('seg-')).length;
        const before = segs();
        expect(before).toBeGreaterThan(0);
        for (const f of ['collection.db-wal', 'collection.db-shm']) if (existsSync(join(dir, f))) unlinkSync(join(dir, f));
        truncateSync(join(dir, 'collection.db'), 0);
        await expectCode(api.Collection.open(dir, { dim: 4, metric: 'l2' }), 'HV_CORRUPT');
        await expectCode(api.Collection.open(dir), 'HV_CORRUPT');
        expect(segs()).toBe(before);
      });

      it('9. stats() reports the bound of the mutable segment', async () => {
        const col = await api.Collection.open(fresh(), { dim: 4, maxMutableRecords: 500 });
        expect(col.stats().mutableBound).toBe(1_000);
        await col.close();
      });
    }
  });
}
