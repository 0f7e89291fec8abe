// Issue 12, item 4: the wasm heap at its ceiling (4 GiB). Every call on an indexed collection
// either works or fails with HV_OUT_OF_MEMORY, changes nothing, and the collection keeps working
// once memory is free again (before the fix: `HV_INTERNAL: unreachable`, then "recursive use of
// an object" on every later call). Under Node; the same wasm module runs in Chromium.
import { describe, expect, it } from 'vitest';
import * as wasm from 'horosvec/wasm';
import { randomVectors } from './helpers/backends.js';

describe('wasm heap ceiling', () => {
  it('calls at a full heap fail with HV_OUT_OF_MEMORY and lose nothing', async () => {
    const { Collection } = wasm;
    const dim = 384;
    const v = randomVectors(3_000, dim, 21);
    const ix = Collection.create({ dim, metric: 'cosine' });
    await ix.add(Array.from({ length: 3_000 }, (_, i) => i), v, Array.from({ length: 3_000 }, (_, i) => ({ i })));
    await ix.buildIndex();
    const q = v.subarray(dim, 2 * dim);
    const before = ix.searchSync(q, { k: 10 }).map((h) => h.id);
    // fill the heap with many small collections (a big one would stop at its own reallocation,
    // far from the ceiling), halving the batch at each HV_OUT_OF_MEMORY down to one record
    const fillers = [Collection.create({ dim })];
    const chunk = randomVectors(2_048, dim, 22);
    let batch = 2_048;
    let next = 0;
    while (batch >= 1) {
      const f = fillers[fillers.length - 1];
      try {
        await f.add(Array.from({ length: batch }, (_, i) => next + i), chunk.subarray(0, batch * dim));
        next += batch;
        if (f.size >= 2_048) fillers.push(Collection.create({ dim }));
      } catch (e) {
        expect((e as { code?: string }).code).toBe('HV_OUT_OF_MEMORY');
        batch = Math.floor(batch / 2);
      }
    }
    expect(next).toBeGreaterThan(1_000_000); // about 4 GiB of rows
    const outcomes: Record<string, string> = {};
    const attempt = async (name: string, f: () => unknown) => {
      try {
        await f();
        outcomes[name] = 'ok';
      } catch (e) {
        outcomes[name] = (e as { code?: string }).code ?? String(e);
      }
    };
    await attempt('toBytes', () => ix.toBytes());
    await attempt('upsert', () => ix.upsert(5, v.subarray(6 * dim, 7 * dim)));
    await attempt('add', () => ix.add(99_999, v.subarray(0, dim)));
    await attempt('delete', () => ix.delete([7]));
    await attempt('searchSync', () => ix.searchSync(q, { k: 10 }));
    await attempt('searchBatch', () => ix.searchBatch([q, q], { k: 10 }));
    await attempt('buildIndex', () => ix.buildIndex());
    for (const [name, o] of Object.entries(outcomes)) expect([name, ['ok', 'HV_OUT_OF_MEMORY'].includes(o) ? 'ok or HV_OUT_OF_MEMORY' : o]).toEqual([name, 'ok or HV_OUT_OF_MEMORY']);
    // the big allocations did fail: the heap was really full
    expect(outcomes.toBytes).toBe('HV_OUT_OF_MEMORY');
    for (const f of fillers) await f.close();
    // memory is back: the collection works, and holds what the calls that succeeded wrote
    const deleted = outcomes.delete === 'ok';
    expect(ix.size).toBe(3_000 - (deleted ? 1 : 0) + (outcomes.add === 'ok' ? 1 : 0));
    const after = ix.searchSync(q, { k: 10 }).map((h) => h.id);
    expect(after.filter((id) => before.includes(id)).length).toBeGreaterThanOrEqual(8);
    await ix.upsert(5, v.subarray(5 * dim, 6 * dim));
    const back = await Collection.fromBytes(await ix.toBytes());
    expect(back.size).toBe(ix.size);
    expect(back.searchSync(q, { k: 1 })[0].id).toBe(1);
  }, 240_000);
});
