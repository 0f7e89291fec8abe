// Filters over durable collections (native): sealed + mutable + deleted + upserted records,
// background seals at a small maxMutableRecords, deleteWhere as a durable write, after reopen and
// after a toBytes/fromBytes round trip (loaded on both backends), and a read-only view.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as native from 'horosvec';
import type { Filter } from 'horosvec';
import { backends, expectCode, randomVectors } from './helpers/backends.js';
import { bruteTopK, matches, randomFilter, randomMeta, rng, type Rec } from './helpers/filter-ref.js';

const root = mkdtempSync(join(tmpdir(), 'horosvec-filter-durable-'));
let dirs = 0;
const fresh = () => join(root, `c${dirs++}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DIM = 8;
type Col = native.Collection;

/** The live records, in insertion order (an upsert keeps a record's place). */
class Model {
  records = new Map<number | string, Rec>();
  put(id: number | string, vector: Float32Array, meta: unknown) {
    this.records.set(id, { id, vector, meta });
  }
  delete(id: number | string) {
    this.records.delete(id);
  }
  list(): Rec[] {
    return [...this.records.values()];
  }
}

const FILTERS: Filter[] = [
  {},
  { cat: 'a' },
  { n: { $gte: 10, $lt: 30 } },
  { tags: { $contains: 'red' } },
  { $or: [{ cat: { $in: ['b', 'c'] } }, { 'u.id': 3 }] },
  { $not: { flag: true } },
  { n: { $in: [5] } },
  { n: -12345 },
];

/** Every filter: count, list (paged), exact search (= brute force) and a walk (min(k, matches) hits). */
async function checkAll(col: Col, model: Model, label: string, seed: number) {
  const r = rng(seed);
  const records = model.list();
  const queries = randomVectors(4, DIM, seed);
  const filters = [...FILTERS, ...Array.from({ length: 30 }, () => randomFilter(r) as Filter)];
  for (const [t, filter] of filters.entries()) {
    const l = `${label}: ${JSON.stringify(filter)}`;
    const matching = records.filter((x) => matches(filter, x.meta));
    expect(await col.count(filter), l).toBe(matching.length);
    const listed: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<Col['list']>> = await col.list({ filter, cursor, limit: 97 });
      listed.push(...page.records.map((x) => x.id));
      cursor = page.cursor;
    } while (cursor !== null);
    expect(listed, l).toEqual(matching.map((x) => x.id));
    const q = queries.subarray((t % 4) * DIM, (t % 4 + 1) * DIM);
    const k = [1, 10, 25][t % 3];
    const want = bruteTopK('l2', records, q, k, filter);
    const exact = await col.search(q, { k, filter, exact: true });
    expect(exact.length, l).toBe(want.length);
    exact.forEach((h, i) => {
      if (h.id !== want[i].id) expect(Math.abs(h.distance - want[i].d), l).toBeLessThan(1e-5);
    });
    const walked = await col.search(q, { k, filter, exact: false });
    expect(walked.length, `${l}: min(k, matches) hits`).toBe(want.length);
    const ok = new Set(matching.map((x) => x.id));
    for (const h of walked) expect(ok.has(h.id), `${l}: ${h.id}`).toBe(true);
  }
}

describe('filters over durable collections (native)', () => {
  it('sealed + mutable + deleted + upserted records; deleteWhere; reopen; snapshot; read-only view', async () => {
    const dir = fresh();
    const r = rng(77);
    const model = new Model();
    const col = await native.Collection.open(dir, { dim: DIM, maxMutableRecords: 1_000_000 });
    const v = randomVectors(2_600, DIM, 8);
    let next = 0;
    const addBatch = async (count: number) => {
      const ids = Array.from({ length: count }, (_, i) => ((next + i) % 4 === 0 ? `d${next + i}` : next + i));
      const flat = v.slice(next * DIM, (next + count) * DIM);
      const meta = ids.map(() => randomMeta(r));
      await col.add(ids, flat, meta);
      ids.forEach((id, i) => model.put(id, flat.subarray(i * DIM, (i + 1) * DIM), meta[i]));
      next += count;
    };
    // two sealed segments (the second past the 2,000-row interim index threshold) and a mutable tail
    await addBatch(700);
    expect(await col.seal()).toBe(700);
    await addBatch(900);
    expect(await col.seal()).toBe(900);
    await addBatch(500);
    expect(col.stats().sealedSegments).toBe(2);
    // deletes and upserts in every part: sealed rows become tombstones, new versions win
    const ids = [...model.records.keys()];
    const gone = ids.filter((_, i) => i % 11 === 3);
    expect(await col.delete(gone)).toBe(gone.length);
    gone.forEach((id) => model.delete(id));
    const changed = ids.filter((_, i) => i % 13 === 5 && !gone.includes(ids[i]));
    const nv = randomVectors(changed.length, DIM, 9);
    const nm = changed.map(() => randomMeta(r));
    await col.upsert(changed, nv, nm);
    changed.forEach((id, i) => model.put(id, nv.subarray(i * DIM, (i + 1) * DIM), nm[i]));
    await checkAll(col, model, 'segments', 1);

    // deleteWhere across the parts: the count, gone everywhere, durable
    const target: Filter = { cat: 'b', n: { $lt: 50 } };
    const doomed = model.list().filter((x) => matches(target, x.meta));
    expect(doomed.length).toBeGreaterThan(10);
    expect(await col.deleteWhere(target)).toBe(doomed.length);
    doomed.forEach((x) => model.delete(x.id));
    expect(col.size).toBe(model.records.size);
    expect(await col.count(target)).toBe(0);
    for (const x of doomed.slice(0, 20)) expect(col.get(x.id)).toBeUndefined();
    await checkAll(col, model, 'after deleteWhere', 2);
    // a bad filter deletes nothing; deleteWhere is a write in call order with the others
    await expectCode(col.deleteWhere({ cat: { $bogus: 1 } } as Filter), 'HV_INVALID_ARGUMENT');
    const late = col.add('late', v.subarray(0, DIM), { cat: 'b', n: 1 });
    const again = col.deleteWhere(target);
    await late;
    expect(await again).toBe(1);
    expect(col.size).toBe(model.records.size);
    const snapshot = await col.toBytes();
    await col.close();

    // reopen: the same answers; a read-only view refuses deleteWhere
    const reopened = await native.Collection.open(dir);
    expect(reopened.size).toBe(model.records.size);
    await checkAll(reopened, model, 'reopened', 3);
    await reopened.close();
    const view = await native.Collection.open(dir, { readOnly: true });
    await expectCode(view.deleteWhere({}), 'HV_READ_ONLY');
    expect(await view.count()).toBe(model.records.size);
    await view.close();

    // the snapshot of the segmented collection, on both backends
    for (const [name, api] of backends) {
      const copy = await api.Collection.fromBytes(snapshot);
      await checkAll(copy, model, `snapshot on ${name}`, 4);
      await copy.close();
    }
  });

  it('background seals at a small maxMutableRecords: filters see every record once, after reopen too', async () => {
    const dir = fresh();
    const r = rng(91);
    const model = new Model();
    const col = await native.Collection.open(dir, { dim: DIM, maxMutableRecords: 150 });
    const v = randomVectors(900, DIM, 12);
    // batches awaited one by one: seals start in the background as the mutable segment fills
    for (let b = 0; b < 9; b++) {
      const ids = Array.from({ length: 100 }, (_, i) => b * 100 + i);
      const meta = ids.map(() => randomMeta(r));
      await col.add(ids, v.subarray(b * 100 * DIM, (b + 1) * 100 * DIM), meta);
      ids.forEach((id, i) => model.put(id, v.subarray(id * DIM, (id + 1) * DIM), meta[i]));
      if (b === 4) {
        const n = await col.deleteWhere({ flag: true });
        const doomed = model.list().filter((x) => matches({ flag: true }, x.meta));
        expect(n).toBe(doomed.length);
        doomed.forEach((x) => model.delete(x.id));
      }
    }
    await col.upsert([3, 3], [v.subarray(0, DIM), v.subarray(DIM, 2 * DIM)], [{ cat: 'zz' }, { cat: 'last' }]);
    model.put(3, v.slice(DIM, 2 * DIM), { cat: 'last' });
    expect(await col.count({ cat: 'zz' })).toBe(0);
    expect(await col.count({ cat: 'last' })).toBe(1);
    // backpressure at 2 × maxMutableRecords made at least one seal happen before the last writes
    expect(col.stats().sealedSegments).toBeGreaterThanOrEqual(1);
    await checkAll(col, model, 'background seals', 5);
    await col.close();
    const reopened = await native.Collection.open(dir, { maxMutableRecords: 150 });
    await checkAll(reopened, model, 'background seals, reopened', 6);
    await reopened.close();
  });
});
