// Durable collections (Collection.open, native backend): reopen, group commit, all-or-nothing
// batches, one writer per directory, read-only views, bad files, and a crash test that SIGKILLs
// a writing child process 30 times (scripts/crash-test.mjs runs the long version).
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import * as native from 'horosvec';
import * as wasm from 'horosvec/wasm';
import { expectCode, randomVectors } from './helpers/backends.js';
// @ts-expect-error plain JS helper
import { crashRounds } from './helpers/crash.mjs';

const root = mkdtempSync(join(tmpdir(), 'horosvec-durable-'));
let n = 0;
const fresh = () => join(root, `c${n++}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('durable collections (native)', () => {
  it('keeps every acknowledged write across close and reopen', async () => {
    const dir = fresh();
    const col = await native.Collection.open(dir, { dim: 4, metric: 'cosine' });
    await col.add(['a', 7, 'b'], [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], [{ t: 'a' }, null, { t: 'b' }]);
    await col.upsert(7, [0, 1, 1, 0], { t: 'seven' });
    expect(await col.delete(['b', 'zz'])).toBe(1);
    const before = await col.search([1, 1, 0, 0], { k: 5 });
    await col.close();
    const again = await native.Collection.open(dir);
    expect(again.size).toBe(2);
    expect(again.dim).toBe(4);
    expect(again.metric).toBe('cosine');
    expect(again.get(7)).toEqual({ vector: Float32Array.from([0, 1, 1, 0]), metadata: { t: 'seven' } });
    expect(again.get('7')).toBeUndefined();
    expect(again.get('b')).toBeUndefined();
    expect(await again.search([1, 1, 0, 0], { k: 5 })).toEqual(before);
    // an index can be built over the reopened records
    await again.close();
  });

  it('group-commits concurrent single writes; each batch is all or nothing', async () => {
    const dir = fresh();
    const col = await native.Collection.open(dir, { dim: 8 });
    const v = randomVectors(64, 8, 3);
    const writes = Array.from({ length: 64 }, (_, i) => col.add(i, v.subarray(i * 8, (i + 1) * 8)));
    await Promise.all(writes);
    expect(col.size).toBe(64);
    // a batch with one stored id fails whole; concurrent writes around it land
    const results = await Promise.allSettled([col.add(100, v.subarray(0, 8)), col.add([101, 5, 102], v.subarray(0, 24)), col.add(103, v.subarray(8, 16))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.code).toBe('HV_DUPLICATE_ID');
    // a search waits for the writes issued before it
    const p = col.add(200, v.subarray(16, 24));
    const hits = await col.search(v.subarray(16, 24), { k: 1 });
    expect(col.stats().commits).toBeLessThanOrEqual(67); // at most one commit per write (fewer when grouped)
    await p;
    expect([2, 200]).toContain(hits[0].id);
    await col.close();
    const again = await native.Collection.open(dir);
    expect(again.size).toBe(67);
    expect(again.get(101)).toBeUndefined();
    expect(again.get(102)).toBeUndefined();
    expect(again.get(103)).toBeDefined();
    await again.close();
  });

  it('commits a write awaited alone on the calling thread; the writes of one turn still form groups', async () => {
    const dir = fresh();
    const col = await native.Collection.open(dir, { dim: 8, durability: 'normal' });
    const v = randomVectors(400, 8, 5);
    const row = (i: number) => v.subarray(i * 8, (i + 1) * 8);
    const c0 = col.stats().commits ?? 0;
    for (let i = 0; i < 20; i++) await col.add(i, row(i));
    expect(col.size).toBe(20);
    await expectCode(col.add([30, 3], v.subarray(0, 16)), 'HV_DUPLICATE_ID');
    await col.upsert(3, row(33));
    expect(await col.delete([4, 999])).toBe(1);
    expect(col.size).toBe(19);
    expect(col.get(3)?.vector).toEqual(Float32Array.from(row(33)));
    // one commit per awaited write (the failed one commits nothing)
    expect((col.stats().commits ?? 0) - c0).toBe(22);
    // 200 writes made in one turn: at most the first is committed at once, the rest are queued
    // and group-committed
    const c1 = col.stats().commits ?? 0;
    const burst = Array.from({ length: 200 }, (_, i) => col.add(100 + i, row(100 + i)));
    await Promise.all(burst);
    expect(col.size).toBe(219);
    expect((col.stats().commits ?? 0) - c1).toBeLessThan(200);
    // writes of one turn apply, and answer, in call order across both paths
    const order: number[] = [];
    await Promise.all([col.add(500, row(1)).then(() => order.push(0)), col.upsert(500, row(2)).then(() => order.push(1)), col.upsert(500, row(3)).then(() => order.push(2))]);
    expect(order).toEqual([0, 1, 2]);
    expect(col.get(500)?.vector).toEqual(Float32Array.from(row(3)));
    expect(await col.delete([500])).toBe(1);
    await col.close();
    const again = await native.Collection.open(dir);
    expect(again.size).toBe(219);
    expect(again.get(3)?.vector).toEqual(Float32Array.from(row(33)));
    await again.close();
  });

  it('one writer per directory; read-only views; options must match', async () => {
    const dir = fresh();
    const col = await native.Collection.open(dir, { dim: 3, durability: 'normal' });
    await col.add(1, [1, 2, 3]);
    await expectCode(native.Collection.open(dir), 'HV_LOCKED');
    // another process too
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', `import { Collection } from 'horosvec'; Collection.open(${JSON.stringify(dir)}).then(() => console.log('opened'), (e) => console.log(e.code));`], { encoding: 'utf8', cwd: process.cwd() });
    expect(child.stdout.trim()).toBe('HV_LOCKED');
    const ro = await native.Collection.open(dir, { readOnly: true });
    expect(ro.size).toBe(1);
    expect((await ro.search([1, 2, 3], { k: 1 }))[0].id).toBe(1);
    await expectCode(ro.add(2, [1, 1, 1]), 'HV_READ_ONLY');
    await ro.close();
    await col.close();
    await expectCode(native.Collection.open(dir, { dim: 4 }), 'HV_INVALID_ARGUMENT');
    await expectCode(native.Collection.open(dir, { metric: 'ip' }), 'HV_INVALID_ARGUMENT');
    await expectCode(native.Collection.open(dir, { durability: 'sometimes' as never }), 'HV_INVALID_ARGUMENT');
    await expectCode(native.Collection.open(fresh()), 'HV_INVALID_ARGUMENT'); // no dim to create
    await expectCode(native.Collection.open(fresh(), { readOnly: true }), 'HV_IO');
    await expectCode(native.Collection.open('', { dim: 3 }), 'HV_INVALID_ARGUMENT');
    const reopened = await native.Collection.open(dir, { dim: 3, metric: 'l2' });
    expect(reopened.size).toBe(1);
    await reopened.close();
    await expectCode(reopened.add(3, [1, 1, 1]), 'HV_CLOSED');
  });

  it('bad files and paths give HV_CORRUPT / HV_IO, never a crash', async () => {
    const dir = fresh();
    mkdirSync(dir);
    writeFileSync(join(dir, 'collection.db'), 'not a database, just some text that is long enough to fill a header'.repeat(3));
    await expectCode(native.Collection.open(dir), 'HV_CORRUPT');
    const file = join(root, 'plain-file');
    writeFileSync(file, 'x');
    await expectCode(native.Collection.open(join(file, 'sub'), { dim: 3 }), 'HV_IO');
  });

  it('survives 30 SIGKILLs of a writing process: acknowledged writes stay, unacknowledged batches are all or nothing', async () => {
    const dir = fresh();
    const stats = await crashRounds(dir, 30, { seed: 7 });
    expect(stats.kills).toBe(30);
    expect(stats.acked).toBeGreaterThan(30);
    expect(stats.records).toBeGreaterThan(0);
  }, 180_000);
});

describe('durable collections under wasm', () => {
  it('Collection.open is not available: HV_UNSUPPORTED', async () => {
    await expectCode((wasm.Collection as unknown as typeof native.Collection).open(fresh(), { dim: 3 }), 'HV_UNSUPPORTED');
  });
});
