// Reading the caller's arguments, on both backends: an exception from the caller's own code (a
// getter, a Proxy trap, toJSON) is the caller's error (HV_INVALID_ARGUMENT with that exception
// as `cause`), never HV_INTERNAL; lengths are checked against `dim` and the ids count before
// any element is read, so a lying `length` fails at once.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backends } from './helpers/backends.js';

type Coded = Error & { code?: string; cause?: unknown };

/** The error `p` (a promise or a function) fails with; fails the test when it succeeds. */
async function caught(p: Promise<unknown> | (() => unknown)): Promise<Coded> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    expect(e).toBeInstanceOf(Error);
    return e as Coded;
  }
  throw new Error('expected the call to fail');
}

/** Fails with HV_INVALID_ARGUMENT whose `cause` is exactly `cause`. */
async function expectCallerError(p: Promise<unknown> | (() => unknown), cause: unknown): Promise<void> {
  const e = await caught(p);
  expect({ code: e.code, message: e.message }).toMatchObject({ code: 'HV_INVALID_ARGUMENT' });
  expect(e.cause).toBe(cause);
}

/** An array that claims 2³¹ elements (or `length`) and counts every other property read. */
function lying(value: unknown, length = 2 ** 31) {
  const budget = 1000;
  let reads = 0;
  const proxy = new Proxy([], {
    get: (_t, k) => {
      if (k === 'length') return length;
      // Past the budget the input is being read element by element: stop (so that the test
      // fails quickly instead of reading 2³¹ values).
      if (++reads > budget) throw new Error('read budget exceeded: elements were read before the length was checked');
      return value;
    },
  });
  return { proxy: proxy as never, reads: () => reads };
}

/** Fails with `code`, having read fewer than 1000 elements of `input`. */
async function expectBounded(input: { reads: () => number }, p: Promise<unknown> | (() => unknown), code: string): Promise<Coded> {
  const e = await caught(p);
  expect({ code: e.code, message: e.message }).toMatchObject({ code });
  expect(input.reads()).toBeLessThan(1000);
  return e;
}

describe.each(backends)('%s backend: errors raised while reading arguments', (name, hv) => {
  const boom = new Error('boom from the caller');
  const throwing = <T extends object>(target: T) => new Proxy(target, { get() { throw boom; } }) as never;
  // `length` reads fine, elements throw
  const throwingElements = (target: unknown[]) =>
    new Proxy(target, { get: (t, k) => (k === 'length' ? t.length : (() => { throw boom; })()) }) as never;

  async function col3() {
    const col = hv.Collection.create({ dim: 3 });
    await col.add(['keep'], [[1, 2, 3]], [{ keep: true }]);
    return col;
  }
  const intact = (col: Awaited<ReturnType<typeof col3>>) => {
    expect(col.size).toBe(1);
    expect(col.get('keep')).toEqual({ vector: new Float32Array([1, 2, 3]), metadata: { keep: true } });
  };

  it('a vector whose getters throw is HV_INVALID_ARGUMENT with the cause, in every method', async () => {
    const col = await col3();
    for (const v of [throwing([1, 2, 3]), throwingElements([1, 2, 3])]) {
      await expectCallerError(col.add('x', v), boom);
      await expectCallerError(col.add(['x'], [v]), boom);
      await expectCallerError(col.upsert('keep', v), boom);
      await expectCallerError(col.search(v, { k: 1 }), boom);
      await expectCallerError(() => col.searchSync(v, { k: 1 }), boom);
      await expectCallerError(col.searchBatch(v, { k: 1 }), boom);
      await expectCallerError(col.searchBatch([v], { k: 1 }), boom);
    }
    // an array-like whose element getter throws
    const al = { length: 3, 0: 1, get 1(): number { throw boom; }, 2: 3 };
    await expectCallerError(col.add('x', al), boom);
    await expectCallerError(col.search(al, { k: 1 }), boom);
    intact(col);
  });

  it('ids, metadata and options whose getters throw are HV_INVALID_ARGUMENT with the cause', async () => {
    const col = await col3();
    const ids = ['a', 'b'];
    Object.defineProperty(ids, 1, { get() { throw boom; } });
    await expectCallerError(col.add(ids, [[1, 1, 1], [2, 2, 2]]), boom);
    await expectCallerError(col.upsert(ids, [[1, 1, 1], [2, 2, 2]]), boom);
    await expectCallerError(col.delete(ids), boom);
    await expectCallerError(col.delete(throwing(['keep'])), boom);
    await expectCallerError(col.add(throwingElements([7]), [[1, 1, 1]]), boom);
    // metadata: toJSON, a getter met by JSON.stringify, the metadata array itself
    await expectCallerError(col.add('m', [1, 1, 1], { toJSON() { throw boom; } }), boom);
    await expectCallerError(col.add('m', [1, 1, 1], { get x() { throw boom; } }), boom);
    await expectCallerError(col.add(['m'], [[1, 1, 1]], throwingElements([{}])), boom);
    // search options
    const k = { get k(): number { throw boom; } };
    await expectCallerError(col.search([1, 2, 3], k), boom);
    await expectCallerError(() => col.searchSync([1, 2, 3], k), boom);
    await expectCallerError(col.searchBatch([[1, 2, 3]], k), boom);
    await expectCallerError(col.search([1, 2, 3], throwing({ k: 1 })), boom);
    // index options
    await expectCallerError(col.buildIndex({ get R(): number { throw boom; } }), boom);
    await expectCallerError(col.buildIndex(throwing({})), boom);
    await expectCallerError(col.buildIndex({ signal: { get aborted(): boolean { throw boom; } } as never }), boom);
    const adjacency = new Uint32Array([0xffffffff]);
    await expectCallerError(col.importGraph({ adjacency, get degree(): number { throw boom; } }), boom);
    await expectCallerError(col.importGraph({ adjacency, degree: 1, get seed(): number { throw boom; } }), boom);
    await expectCallerError(col.importGraph(throwing({ adjacency, degree: 1 })), boom);
    expect(col.stats().mode).toBe('exact');
    intact(col);
  });

  it('Collection.create and Collection.open: an options getter that throws is HV_INVALID_ARGUMENT with the cause', async () => {
    await expectCallerError(() => hv.Collection.create({ get dim(): number { throw boom; } }), boom);
    await expectCallerError(() => hv.Collection.create({ dim: 3, get metric(): 'l2' { throw boom; } }), boom);
    await expectCallerError(() => hv.Collection.create(throwing({ dim: 3 })), boom);
    const dir = join(tmpdir(), `horosvec-input-errors-never-created-${process.pid}`);
    if (name === 'native') {
      await expectCallerError(hv.Collection.open(dir, { get dim(): number { throw boom; } }), boom);
      await expectCallerError(hv.Collection.open(dir, new Proxy({}, { ownKeys() { throw boom; } })), boom);
    } else {
      const e = await caught(hv.Collection.open(dir, { get dim(): number { throw boom; } }));
      expect(e.code).toBe('HV_UNSUPPORTED');
    }
  });

  it('whatever the caller throws counts as the caller\'s, even an HV_-coded error or a non-Error', async () => {
    const col = await col3();
    const fake = Object.assign(new Error('HV_CLOSED: not ours'), { code: 'HV_CLOSED' });
    await expectCallerError(col.search(new Proxy([1, 2, 3], { get() { throw fake; } }) as never, { k: 1 }), fake);
    await expectCallerError(col.add('x', new Proxy([1, 2, 3], { get() { throw 'a string'; } }) as never), 'a string');
    // an exception whose own traps throw still gives a coded error (compared by identity only:
    // printing it would throw)
    const nasty = new Proxy({}, { get() { throw boom; }, getPrototypeOf() { throw boom; } });
    const e = await caught(col.add('x', new Proxy([1, 2, 3], { get() { throw nasty; } }) as never));
    expect(e.code).toBe('HV_INVALID_ARGUMENT');
    expect(e.cause === nasty).toBe(true);
    intact(col);
  });

  it('errors of the backend keep their codes; a closed collection is HV_CLOSED first', async () => {
    const col = await col3();
    // read through a Proxy without trouble, then refused by the core
    const nan = new Proxy([1, 2, 3], { get: (t, k) => (k === 'length' ? 3 : k === '1' ? NaN : Reflect.get(t, k)) }) as never;
    expect((await caught(col.add('x', nan))).code).toBe('HV_INVALID_VECTOR');
    expect((await caught(col.search(nan, { k: 1 }))).code).toBe('HV_INVALID_VECTOR');
    expect((await caught(col.add(new Proxy(['keep'], {}) as never, [[3, 2, 1]]))).code).toBe('HV_DUPLICATE_ID');
    expect((await caught(col.search([1, 2, 3], new Proxy({ k: 0 }, {}) as never))).code).toBe('HV_INVALID_ARGUMENT');
    intact(col);
    await col.close();
    expect((await caught(col.search(throwing([1, 2, 3]), { k: 1 }))).code).toBe('HV_CLOSED');
    expect((await caught(() => col.searchSync(throwing([1, 2, 3]), { k: 1 }))).code).toBe('HV_CLOSED');
    expect((await caught(col.add('x', throwing([1, 2, 3])))).code).toBe('HV_CLOSED');
  });

  it('a non-function Symbol.iterator on vectors or ids is read by index (it works)', async () => {
    const col = hv.Collection.create({ dim: 3 });
    const noIter = <T extends object>(o: T) => Object.assign(o, { [Symbol.iterator]: 1 }) as never;
    await col.add(noIter([1, 2]), noIter([1, 2, 3, 4, 5, 6]));
    await col.add(noIter(['s']), noIter([noIter([7, 8, 9])]));
    await col.upsert(noIter([3]), noIter({ length: 3, 0: 3, 1: 2, 2: 1 }));
    const f64 = new Float64Array([5, 5, 5]);
    (f64 as unknown as Record<symbol, unknown>)[Symbol.iterator] = 1;
    await col.add('u', f64);
    expect(col.get(2)?.vector).toEqual(new Float32Array([4, 5, 6]));
    expect(col.get('s')?.vector).toEqual(new Float32Array([7, 8, 9]));
    expect(col.get(3)?.vector).toEqual(new Float32Array([3, 2, 1]));
    expect(col.get('u')?.vector).toEqual(new Float32Array([5, 5, 5]));
    expect((await col.search(noIter([4, 5, 6]), { k: 1 }))[0].id).toBe(2);
    expect(col.searchSync(noIter([7, 8, 9]), { k: 1 })[0].id).toBe('s');
    expect((await col.searchBatch(noIter([4, 5, 6, 7, 8, 9]), { k: 1 })).map((h) => h[0].id)).toEqual([2, 's']);
    expect(await col.delete(noIter([1, 2, 'nope']))).toBe(2);
    expect(col.size).toBe(3);
  });

  it('a Proxy of a typed array is HV_INVALID_ARGUMENT (it cannot be read), never HV_INTERNAL', async () => {
    const col = await col3();
    const q = new Proxy(new Float32Array(3), {}) as never;
    expect((await caught(col.search(q, { k: 1 }))).code).toBe('HV_INVALID_ARGUMENT');
    expect((await caught(() => col.searchSync(q, { k: 1 }))).code).toBe('HV_INVALID_ARGUMENT');
    expect((await caught(col.searchBatch(q, { k: 1 }))).code).toBe('HV_INVALID_ARGUMENT');
    expect((await caught(col.searchBatch([q], { k: 1 }))).code).toBe('HV_INVALID_ARGUMENT');
    expect((await caught(col.add('x', q))).code).toBe('HV_INVALID_ARGUMENT');
    expect((await caught(col.upsert(['x'], [new Proxy(new Float64Array(3), {}) as never]))).code).toBe('HV_INVALID_ARGUMENT');
    expect((await caught(col.importGraph({ adjacency: new Proxy(new Uint32Array(3), {}) as never, degree: 3 }))).code).toBe('HV_INVALID_ARGUMENT');
    expect((await caught(hv.Collection.fromBytes(new Proxy(new Uint8Array(8), {}) as never))).code).toBe('HV_INVALID_ARGUMENT');
    intact(col);
  });

  it('checks a length against dim before reading any element (single vectors)', async () => {
    const col = await col3();
    for (const make of [
      (p: never) => () => col.searchSync(p, { k: 5 }),
      (p: never) => col.search(p, { k: 5 }),
      (p: never) => col.add(['x'], [p]),
      (p: never) => col.upsert('keep', [p]),
      (p: never) => col.searchBatch([p], { k: 1 }),
    ]) {
      const input = lying(0.5);
      const e = await expectBounded(input, make(input.proxy), 'HV_DIM_MISMATCH');
      expect(e.message).toMatch(/2147483648 components/);
      expect(e.message).toMatch(/dim is 3/);
    }
    intact(col);
  });

  it('checks flat batches against a multiple of dim and the ids count before reading', async () => {
    const col = await col3();
    // 2³¹ is no multiple of 3: the core's shape error, with its wording
    for (const make of [
      (p: never) => col.add(['x'], p),
      (p: never) => col.add('x', p),
      (p: never) => col.upsert('keep', p),
      (p: never) => col.searchBatch(p, { k: 1 }),
    ]) {
      const input = lying(0.5);
      const e = await expectBounded(input, make(input.proxy), 'HV_DIM_MISMATCH');
      expect(e.message).toMatch(/2147483648 values/);
      expect(e.message).toMatch(/dim 3/);
    }
    // a whole number of vectors, but not as many as ids: the count error (as the core gives it)
    const col4 = hv.Collection.create({ dim: 4 });
    for (const make of [(p: never) => col4.add(['x'], p), (p: never) => col4.upsert('x', p), (p: never) => col4.add(['x', 'y'], p)]) {
      const input = lying(0.5);
      const e = await expectBounded(input, make(input.proxy), 'HV_INVALID_ARGUMENT');
      expect(e.message).toMatch(/ids but 536870912 vectors of dim 4/);
    }
    // an array of 2³¹ vectors for one id
    const rows = lying([1, 2, 3]);
    await expectBounded(rows, col.add(['x'], rows.proxy), 'HV_INVALID_ARGUMENT');
    // 2²⁹ queries of dim 4 at once: over the per-call bound
    const queries = lying(0.5);
    await expectBounded(queries, col4.searchBatch(queries.proxy, { k: 1 }), 'HV_INVALID_ARGUMENT');
    const rowQueries = lying([1, 2, 3, 4]);
    await expectBounded(rowQueries, col4.searchBatch(rowQueries.proxy, { k: 1 }), 'HV_INVALID_ARGUMENT');
    expect(col4.size).toBe(0);
    intact(col);
  });

  it('checks the ids count before reading ids', async () => {
    const col = await col3();
    for (const make of [(p: never) => col.add(p, [[1, 1, 1]]), (p: never) => col.upsert(p, [1, 1, 1]), (p: never) => col.delete(p)]) {
      const input = lying('a');
      await expectBounded(input, make(input.proxy), 'HV_INVALID_ARGUMENT');
    }
    // below the per-call bound, but not the number of vectors: refused before an id is read
    for (const make of [(p: never) => col.add(p, [[1, 1, 1]]), (p: never) => col.upsert(p, [1, 1, 1, 2, 2, 2])]) {
      const input = lying('a', 1_000_000);
      const e = await expectBounded(input, make(input.proxy), 'HV_INVALID_ARGUMENT');
      expect(e.message).toMatch(/1000000 ids but \d vectors/);
    }
    const meta = lying({});
    await expectBounded(meta, col.add(['m'], [[1, 1, 1]], meta.proxy), 'HV_INVALID_ARGUMENT');
    // a length that is no length
    for (const length of [-1, 2.5, NaN, Infinity, '3']) {
      const v = lying(1, length as number);
      expect((await caught(col.add('x', v.proxy))).code).toMatch(/^HV_(INVALID_ARGUMENT|DIM_MISMATCH)$/);
      const ids = lying('a', length as number);
      expect((await caught(col.delete(ids.proxy))).code).toBe('HV_INVALID_ARGUMENT');
    }
    intact(col);
  });
});
