// Sealed segments of durable collections (native): seal and compact, search merged across
// segments (exact stays exact), deletes and upserts of sealed records, reopen, damaged segment
// files, bad options, and 30 SIGKILLs landing during background seals and compactions.
import { mkdtempSync, readdirSync, rmSync, readFileSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as native from 'horosvec';
import * as wasm from 'horosvec/wasm';
import { expectCode, randomVectors } from './helpers/backends.js';
// @ts-expect-error plain JS helper
import { crashRounds } from './helpers/crash.mjs';

const root = mkdtempSync(join(tmpdir(), 'horosvec-segments-'));
let n = 0;
const fresh = () => join(root, `c${n++}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DIM = 16;
const segmentFiles = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('seg-'));

/** Exact top-k ids (and distances) over the same records in an in-memory collection. */
async function truthOf(records: Map<number, Float32Array>, queries: Float32Array, k: number) {
  const mem = native.Collection.create({ dim: DIM, metric: 'l2' });
  const ids = [...records.keys()];
  const flat = new Float32Array(ids.length * DIM);
  ids.forEach((id, i) => flat.set(records.get(id)!, i * DIM));
  await mem.add(ids, flat);
  const out = await mem.searchBatch(queries, { k, exact: true });
  await mem.close();
  return out.map((hits) => hits.map((h) => h.id));
}

describe('sealed segments (native)', () => {
  it('seals, searches across segments, deletes and upserts sealed records, compacts and reopens', async () => {
    const dir = fresh();
    const col = await native.Collection.open(dir, { dim: DIM, maxMutableRecords: 1_000_000 });
    const records = new Map<number, Float32Array>();
    const v = randomVectors(3_500, DIM, 11);
    for (let s = 0; s < 3; s++) {
      const ids = Array.from({ length: 1_000 }, (_, i) => s * 1_000 + i);
      await col.add(ids, v.subarray(s * 1_000 * DIM, (s + 1) * 1_000 * DIM), ids.map((id) => ({ id })));
      ids.forEach((id) => records.set(id, v.slice(id * DIM, (id + 1) * DIM)));
      expect(await col.seal()).toBe(1_000);
    }
    const tail = Array.from({ length: 500 }, (_, i) => 3_000 + i);
    await col.add(tail, v.subarray(3_000 * DIM), tail.map((id) => ({ id })));
    tail.forEach((id) => records.set(id, v.slice(id * DIM, (id + 1) * DIM)));
    let s = col.stats();
    expect([s.size, s.sealedSegments, s.mutableRecords]).toEqual([3_500, 3, 500]);
    expect(s.mode).toMatch(/^segmented-vamana-rabitq/);
    expect(s.indexBytesPerVector).toBeGreaterThan(0);
    expect(segmentFiles(dir)).toHaveLength(3);

    // a sealed record: get, duplicate add, upsert (new version wins), delete
    expect(col.get(1_234)).toEqual({ vector: records.get(1_234), metadata: { id: 1_234 } });
    await expectCode(col.add(1_234, new Float32Array(DIM)), 'HV_DUPLICATE_ID');
    const nv = new Float32Array(DIM).fill(0.25);
    await col.upsert(1_234, nv, { id: 'new' });
    records.set(1_234, nv);
    expect(col.get(1_234)).toEqual({ vector: nv, metadata: { id: 'new' } });
    const gone = Array.from({ length: 3_500 }, (_, i) => i).filter((i) => i % 9 === 4);
    expect(await col.delete(gone)).toBe(gone.length);
    gone.forEach((id) => records.delete(id));
    expect(col.size).toBe(records.size);

    const queries = randomVectors(40, DIM, 99);
    const check = async (c: native.Collection, label: string) => {
      const truth = await truthOf(records, queries, 10);
      const exact = await c.searchBatch(queries, { k: 10, exact: true });
      expect(exact.map((h) => h.map((x) => x.id)), `${label}: exact is exact across segments`).toEqual(truth);
      const approx = await c.searchBatch(queries, { k: 10, exact: false, ef: 64 });
      let found = 0;
      approx.forEach((hits, q) => {
        for (const h of hits) {
          expect(records.has(h.id as number), `${label}: deleted id ${h.id} returned`).toBe(true);
          if (truth[q].includes(h.id)) found++;
        }
      });
      expect(found / (10 * truth.length), `${label}: recall@10`).toBeGreaterThan(0.9);
      expect(c.get(4)).toBeUndefined();
      expect(c.get(1_234)?.metadata).toEqual({ id: 'new' });
    };
    await check(col, 'before reopen');
    await col.close();

    const again = await native.Collection.open(dir);
    expect(again.size).toBe(records.size);
    await check(again, 'after reopen');
    expect(await again.compact()).toBe(3);
    s = again.stats();
    expect([s.sealedSegments, s.tombstones]).toEqual([1, 0]);
    expect(segmentFiles(dir)).toHaveLength(1);
    await check(again, 'after compaction');
    // the snapshot of a segmented collection holds every live record (no graph)
    const snap = await native.Collection.fromBytes(await again.toBytes());
    expect(snap.size).toBe(records.size);
    await expectCode(again.exportGraph(), 'HV_UNSUPPORTED');
    await again.close();
    const third = await native.Collection.open(dir, { verify: true });
    await check(third, 'after compaction and reopen');
    // the mapped segment's walk data is read in the background after open; searches work meanwhile
    const t0 = Date.now();
    while (third.stats().warmingSegments > 0 && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 20));
    expect(third.stats().warmingSegments).toBe(0);
    await check(third, 'after the warm-up');
    await third.close();
  }, 120_000);

  it('seals automatically at maxMutableRecords and merges past maxSealedSegments', async () => {
    const dir = fresh();
    const col = await native.Collection.open(dir, { dim: DIM, metric: 'cosine', maxMutableRecords: 400, maxSealedSegments: 2 });
    const v = randomVectors(2_000, DIM, 5);
    for (let b = 0; b < 10; b++) {
      const ids = Array.from({ length: 200 }, (_, i) => b * 200 + i);
      await col.add(ids, v.subarray(b * 200 * DIM, (b + 1) * 200 * DIM));
    }
    await col.seal(); // waits for any background job, then seals the rest
    const s = col.stats();
    expect(s.size).toBe(2_000);
    expect(s.mutableRecords).toBe(0);
    expect(s.sealedSegments).toBeGreaterThanOrEqual(1);
    // at most maxSealedSegments + 1 between a seal and the merge it triggers, + 1 for seal()
    expect(s.sealedSegments).toBeLessThanOrEqual(4);
    expect(col.get(1_999)?.vector).toEqual(v.slice(1_999 * DIM));
    await col.close();
  }, 60_000);

  it('indexes the mutable segment in the background (interim index) and scans only its tail exactly', async () => {
    const dir = fresh();
    const col = await native.Collection.open(dir, { dim: DIM });
    const v = randomVectors(3_200, DIM, 8);
    await col.add(Array.from({ length: 3_000 }, (_, i) => i), v.subarray(0, 3_000 * DIM));
    const t0 = Date.now();
    while (col.stats().mutableIndexed < 3_000 && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 50));
    expect(col.stats().mutableIndexed).toBe(3_000);
    await col.add(Array.from({ length: 200 }, (_, i) => 3_000 + i), v.subarray(3_000 * DIM)); // the tail
    expect(await col.delete([5, 3_005])).toBe(2);
    const s = col.stats();
    expect([s.size, s.mutableRecords, s.sealedSegments]).toEqual([3_198, 3_198, 0]);
    const queries = randomVectors(30, DIM, 4);
    const exact = await col.searchBatch(queries, { k: 10, exact: true });
    const approx = await col.searchBatch(queries, { k: 10, exact: false });
    let found = 0;
    approx.forEach((hits, q) => hits.forEach((h) => (found += exact[q].some((e) => e.id === h.id) ? 1 : 0)));
    expect(found / 300).toBeGreaterThan(0.9);
    // tail rows are found, deleted ones are not
    expect((await col.search(v.subarray(3_100 * DIM, 3_101 * DIM), { k: 1, exact: false }))[0].id).toBe(3_100);
    expect((await col.search(v.subarray(3_005 * DIM, 3_006 * DIM), { k: 1, exact: false }))[0].id).not.toBe(3_005);
    await col.close();
  }, 90_000);

  it('rejects bad options and misuse with stable codes', async () => {
    const dir = fresh();
    await expectCode(native.Collection.open(dir, { dim: DIM, maxMutableRecords: 0 }), 'HV_INVALID_ARGUMENT');
    await expectCode(native.Collection.open(dir, { dim: DIM, maxMutableRecords: 1.5 }), 'HV_INVALID_ARGUMENT');
    // @ts-expect-error wrong type on purpose
    await expectCode(native.Collection.open(dir, { dim: DIM, maxSealedSegments: '3' }), 'HV_INVALID_ARGUMENT');
    await expectCode(native.Collection.open(dir, { dim: DIM, maxTombstoneRatio: 2 }), 'HV_INVALID_ARGUMENT');
    await expectCode(native.Collection.open(dir, { dim: DIM, maxTombstoneRatio: Number.NaN }), 'HV_INVALID_ARGUMENT');
    // a misspelt option is not silently ignored
    // @ts-expect-error unknown option on purpose
    await expectCode(native.Collection.open(dir, { dim: DIM, maxMutableRecord: 10 }), 'HV_INVALID_ARGUMENT');
    for (const backend of [native, wasm]) {
      const mem = backend.Collection.create({ dim: DIM });
      await expectCode(mem.seal(), 'HV_UNSUPPORTED');
      await expectCode(mem.compact(), 'HV_UNSUPPORTED');
      await mem.close();
      await expectCode(mem.seal(), 'HV_CLOSED');
    }
    const col = await native.Collection.open(dir, { dim: DIM });
    expect(await col.seal()).toBe(0); // nothing to seal
    expect(await col.compact()).toBe(0); // nothing to merge
    await col.add([1, 2], randomVectors(2, DIM, 1));
    expect(await col.seal()).toBe(2);
    const ro = await native.Collection.open(dir, { readOnly: true });
    expect(ro.size).toBe(2);
    await expectCode(ro.seal(), 'HV_READ_ONLY');
    await ro.close();
    await col.close();
    await expectCode(col.seal(), 'HV_CLOSED');
  });

  it('damaged, foreign, truncated or missing segment files fail with HV_CORRUPT / HV_VERSION and lose nothing', async () => {
    const dir = fresh();
    const col = await native.Collection.open(dir, { dim: DIM });
    await col.add(Array.from({ length: 300 }, (_, i) => i), randomVectors(300, DIM, 2));
    await col.seal();
    await col.close();
    const [name] = segmentFiles(dir);
    const file = join(dir, name);
    const good = readFileSync(file);
    const attempt = async (bytes: Uint8Array | null, code: string, verify = false) => {
      if (bytes === null) unlinkSync(file);
      else writeFileSync(file, bytes);
      await expectCode(native.Collection.open(dir, { verify }), code);
    };
    const flipped = Buffer.from(good);
    flipped[40] ^= 1;
    await attempt(flipped, 'HV_CORRUPT');
    await attempt(Buffer.alloc(good.length, 7), 'HV_CORRUPT');
    await attempt(good.subarray(0, good.length - 64), 'HV_CORRUPT');
    await attempt(good.subarray(0, 10), 'HV_CORRUPT');
    const version = Buffer.from(good);
    version[8] = 3; // this build reads format versions 1 and 2
    await attempt(version, 'HV_VERSION'); // checked before the header checksum: a newer layout may differ
    const bulk = Buffer.from(good);
    const vectorsAt = Number(bulk.readBigUInt64LE(104));
    bulk[vectorsAt + 5] ^= 0x40;
    await attempt(bulk, 'HV_CORRUPT', true);
    await attempt(null, 'HV_CORRUPT');
    // put the file back: nothing was lost
    writeFileSync(file, good);
    const back = await native.Collection.open(dir, { verify: true });
    expect(back.size).toBe(300);
    await back.close();
  });

  it('survives 30 SIGKILLs during writes, background seals and compactions', async () => {
    const dir = fresh();
    // a fresh directory every 10 kills, so that seals keep finishing between kills
    const stats = await crashRounds(dir, 30, { seed: 21, segments: true, minMs: 50, maxMs: 600, freshEvery: 10 });
    expect(stats.kills).toBe(30);
    expect(stats.acked).toBeGreaterThan(30);
    expect(stats.maxSealedSegments).toBeGreaterThan(0);
    expect(stats.segmentFilesSeen).toBeGreaterThan(1);
    // no orphan temporary files survive a reopen
    const reopened = await native.Collection.open(dir);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(segmentFiles(dir)).toHaveLength(reopened.stats().sealedSegments);
    await reopened.close();
  }, 240_000);
});
