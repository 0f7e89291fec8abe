// Where a Promise search runs on the native backend (npm/lib/search-dispatch.js): the policy as a
// table, then the dispatcher over fake raw calls and a fake clock (no backend, no timing), then
// the real native collection: same hits on every path, and a loop of awaited searches still lets
// a timer run.
import { describe, expect, it } from 'vitest';
import { INLINE_MS, placeSearch, SearchDispatcher, TURN_MS } from '../npm/lib/search-dispatch.js';
import * as native from 'horosvec';

describe('placeSearch', () => {
  const base = { estimateMs: 0.2, poolPending: 0, inlineThisTick: false, turnMs: 0 };
  it.each([
    ['cheap, alone: inline', base, 'inline'],
    ['never timed: pool', { ...base, estimateMs: undefined }, 'pool'],
    ['predicted over the inline budget: pool', { ...base, estimateMs: INLINE_MS + 0.01 }, 'pool'],
    ['exactly the inline budget: inline', { ...base, estimateMs: INLINE_MS }, 'inline'],
    ['another search on the pool: pool', { ...base, poolPending: 1 }, 'pool'],
    ['an inline search in this microtask checkpoint (concurrent callers): pool', { ...base, inlineThisTick: true }, 'pool'],
    ['the turn budget would be passed: defer', { ...base, turnMs: TURN_MS - 0.1 }, 'defer'],
    ['the turn budget reached exactly: inline', { ...base, turnMs: TURN_MS - 0.2 }, 'inline'],
    ['expensive and the turn spent: pool, not defer', { ...base, estimateMs: 5, turnMs: TURN_MS }, 'pool'],
    ['concurrent and the turn spent: pool', { ...base, poolPending: 2, turnMs: TURN_MS }, 'pool'],
  ])('%s', (_name, state, place) => {
    expect(placeSearch(state)).toBe(place);
  });
  it('takes other budgets', () => {
    expect(placeSearch({ ...base, estimateMs: 3 }, { inlineMs: 4, turnMs: 10 })).toBe('inline');
    expect(placeSearch({ ...base, estimateMs: 3, turnMs: 8 }, { inlineMs: 4, turnMs: 10 })).toBe('defer');
  });
});

/** A dispatcher over fake calls: `cost` ms of the fake clock per sync search; pool calls settle when told. */
function fakeDispatcher(cost = 0.2) {
  let clock = 0;
  const log: string[] = [];
  const turnEnd: (() => void)[] = [];
  const pool: { resolve: (v: string) => void; reject: (e: Error) => void; q: number }[] = [];
  let size = 100;
  const d = new SearchDispatcher({
    runSync: (q: Float32Array) => {
      log.push(`inline ${q[0]}`);
      clock += cost;
      if (q[0] < 0) throw new Error('bad query');
      return `hits ${q[0]}`;
    },
    runAsync: (q: Float32Array) => {
      log.push(`pool ${q[0]}`);
      return new Promise<string>((resolve, reject) => pool.push({ resolve, reject, q: q[0] }));
    },
    size: () => size,
    now: () => clock,
    onTurnEnd: (f: () => void) => turnEnd.push(f),
  });
  const endTurn = () => {
    for (const f of turnEnd.splice(0)) f();
  };
  const settleAll = (ms = 0.3) => {
    clock += ms;
    for (const p of pool.splice(0)) p.resolve(`hits ${p.q}`);
  };
  return { d, log, endTurn, settleAll, pool, setSize: (n: number) => (size = n), setCost: (ms: number) => (cost = ms) };
}
const q = (v: number) => new Float32Array([v, 0]);
const opts = { k: 10, includeMetadata: true };
const microtasks = () => new Promise<void>((r) => queueMicrotask(r));

/** A fake dispatcher whose kind `opts` has been timed on the pool (query 0, round trip `poolMs`). */
async function warmed(cost = 0.2, poolMs = 0.3) {
  const f = fakeDispatcher(cost);
  const warm = f.d.search(q(0), opts);
  f.settleAll(poolMs);
  await warm;
  await microtasks();
  return f;
}

describe('SearchDispatcher', () => {
  it('times a new kind of search on the pool, then runs it inline', async () => {
    const f = fakeDispatcher();
    const first = f.d.search(q(1), opts);
    expect(first).toBeInstanceOf(Promise);
    f.settleAll();
    expect(await first).toBe('hits 1');
    expect(f.d.search(q(2), opts)).toBe('hits 2');
    expect(f.log).toEqual(['pool 1', 'inline 2']);
    // another kind (other k) is timed anew
    const other = f.d.search(q(3), { ...opts, k: 5 });
    expect(other).toBeInstanceOf(Promise);
    f.settleAll();
    await other;
  });

  it('sends a second search of the same microtask checkpoint, and any made while one is on the pool, to the pool', async () => {
    const f = await warmed();
    expect(f.d.search(q(1), opts)).toBe('hits 1');
    const second = f.d.search(q(2), opts);
    expect(second).toBeInstanceOf(Promise);
    await microtasks();
    const third = f.d.search(q(3), opts); // q2 still on the pool
    expect(third).toBeInstanceOf(Promise);
    f.settleAll();
    expect(await Promise.all([second, third])).toEqual(['hits 2', 'hits 3']);
    await microtasks();
    expect(f.d.search(q(4), opts)).toBe('hits 4');
    expect(f.log).toEqual(['pool 0', 'inline 1', 'pool 2', 'pool 3', 'inline 4']);
    expect(f.d.counts).toEqual({ inline: 2, deferred: 0, pool: 3 });
  });

  it('defers a search past the turn budget to the next turn, with a copy of its query', async () => {
    const f = await warmed(0.5, 0.5);
    const inline: unknown[] = [];
    for (let i = 1; i <= 4; i++) {
      await microtasks();
      inline.push(f.d.search(q(i), opts));
    }
    expect(inline).toEqual(['hits 1', 'hits 2', 'hits 3', 'hits 4']); // 4 × 0.5 ms = the 2 ms turn
    await microtasks();
    const buf = q(5);
    const deferred = f.d.search(buf, opts);
    expect(deferred).toBeInstanceOf(Promise);
    buf[0] = 99; // the caller reuses its buffer
    expect(f.d.pending).toBe(1);
    f.endTurn();
    expect(await deferred).toBe('hits 5');
    expect(f.log.at(-1)).toBe('inline 5');
    await microtasks();
    expect(f.d.search(q(6), opts)).toBe('hits 6'); // a new turn
    expect(f.d.counts).toEqual({ inline: 5, deferred: 1, pool: 1 });
  });

  it('moves a kind to the pool once it has grown slow, and retimes it when the collection doubles', async () => {
    const f = await warmed();
    f.setCost(20);
    expect(f.d.search(q(1), opts)).toBe('hits 1'); // this inline search took 20 ms
    await microtasks();
    f.endTurn();
    expect(f.d.search(q(2), opts)).toBeInstanceOf(Promise);
    f.settleAll();
    f.setSize(1000);
    await microtasks();
    expect(f.d.search(q(3), opts)).toBeInstanceOf(Promise);
    f.settleAll();
    expect(f.log).toEqual(['pool 0', 'inline 1', 'pool 2', 'pool 3']);
  });

  it('an inline failure is thrown, a pool failure rejects, and neither leaves a search pending', async () => {
    const f = await warmed();
    expect(() => f.d.search(q(-1), opts)).toThrow('bad query');
    const p = f.d.search(q(-2), opts);
    f.pool[0].reject(new Error('pool failed'));
    await expect(p).rejects.toThrow('pool failed');
    expect(f.d.pending).toBe(0);
  });
});

describe('Promise search on the native backend', () => {
  const { Collection } = native;
  const dim = 16;
  const n = 2000;
  const vectors = new Float32Array(n * dim).map((_, i) => Math.sin(i * 0.37) + Math.cos(i * 0.011));

  it('returns the hits of searchSync whether it runs on the pool, inline, deferred or concurrently, and errors keep their codes', async () => {
    const c = Collection.create({ dim, metric: 'l2' });
    await c.add(Array.from({ length: n }, (_, i) => i), vectors);
    await c.buildIndex({ seed: 7 });
    const queries = Array.from({ length: 40 }, (_, i) => vectors.slice(i * 37 * dim, (i * 37 + 1) * dim));
    const expected = queries.map((qq) => c.searchSync(qq, { k: 5, ef: 32 }));
    const sequential = [];
    for (const qq of queries) sequential.push(await c.search(qq, { k: 5, ef: 32 }));
    expect(sequential).toEqual(expected);
    expect(await Promise.all(queries.map((qq) => c.search(qq, { k: 5, ef: 32 })))).toEqual(expected);
    await expect(c.search(new Float32Array(dim + 1), { k: 5 })).rejects.toMatchObject({ code: 'HV_DIM_MISMATCH' });
    await expect(c.search(queries[0], { k: 5, filter: { $bogus: 1 } as never })).rejects.toMatchObject({ code: 'HV_INVALID_ARGUMENT' });
    // every Promise search that reached the dispatcher is counted once, wherever it ran (the
    // dimension error is refused before it)
    const placed = c.stats().searches!;
    expect(placed.inline + placed.deferred + placed.pool).toBe(2 * queries.length + 1);
    await c.close();
    await expect(c.search(queries[0], { k: 5 })).rejects.toMatchObject({ code: 'HV_CLOSED' });
  });

  it('a loop of awaited searches lets a timer and I/O run', async () => {
    const c = Collection.create({ dim, metric: 'l2' });
    await c.add(Array.from({ length: n }, (_, i) => i), vectors);
    await c.buildIndex({ seed: 7 });
    let fired = false;
    setTimeout(() => {
      fired = true;
    }, 1);
    const t0 = Date.now();
    // without yielding, this loop would run for its full 3 s
    while (!fired && Date.now() - t0 < 3000) await c.search(vectors.subarray(0, dim), { k: 5, ef: 16 });
    expect(fired).toBe(true);
    await c.close();
  });
});
