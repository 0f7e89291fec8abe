// Filtered search and metadata queries (issue 14), the same cases on the native and the wasm
// backend: every operator, dotted paths, arrays, type mismatches, bad filters and values JSON
// cannot carry, the `ids` allow-list, exactly min(k, matches) hits at tiny selectivity (on the
// shipped real sample, through the index), count / list / deleteWhere, unknown option names,
// upsert of one id twice in a batch, a snapshot round trip, and a property test of filtered
// search against a brute-force filter written here (helpers/filter-ref.ts).
import { describe, expect, it } from 'vitest';
import { backends, expectCode, randomVectors, refDistance, type Api } from './helpers/backends.js';
import { bruteTopK, matches, randomFilter, randomMeta, rng, type Rec } from './helpers/filter-ref.js';
import { loadSample, loadSources } from './helpers/sample.js';
import type { Filter } from 'horosvec';

type Coded = Error & { code?: string };

/** The error `p` fails with (a test failure when it succeeds). */
async function failure(p: Promise<unknown> | (() => unknown)): Promise<Coded> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return e as Coded;
  }
  throw new Error('expected the call to fail');
}

/** Fails with HV_INVALID_ARGUMENT and a message containing every part of `parts`. */
async function expectInvalid(p: Promise<unknown> | (() => unknown), ...parts: string[]) {
  const e = await failure(p);
  expect(e.code, e.message).toBe('HV_INVALID_ARGUMENT');
  for (const s of parts) expect(e.message).toContain(s);
}

// The fixture of the operator table: types mixed on purpose (a year as a string, a record without
// metadata, metadata that is an array, a tags field that is a string).
const FIXTURE: [number | string, unknown][] = [
  [1, { source: 'wordnet', year: 1995, tags: ['a', 'b'], user: { id: 7, name: 'ann' }, title: 'the quick fox', draft: false }],
  [2, { source: 'gcide', year: 2001, tags: ['b'], user: { id: 8 }, title: 'lazy dog', draft: true }],
  ['three', { source: 'wordnet', year: '1999', tags: [], score: 0.5 }],
  [4, undefined],
  [5, { source: 'foldoc', year: 1990, tags: ['a', 3, null], nested: { deep: { v: 1 } }, n: null }],
  [6, [1, 2, 3]],
  [7, { source: 'jargon', year: 1990.5, tags: 'a,b', user: { id: '7' } }],
  [8, { source: 'wordnet', year: 2010, items: [{ name: 'x' }, { name: 'y' }] }],
];
const ALL = FIXTURE.map(([id]) => id);
const but = (...out: (number | string)[]) => ALL.filter((id) => !out.includes(id));

// [filter, the ids it matches, in insertion order], worked out by hand from the documented rules
const TABLE: [string, Filter, (number | string)[]][] = [
  ['{} matches everything', {}, ALL],
  ['implicit $eq', { source: 'wordnet' }, [1, 'three', 8]],
  ['$eq', { source: { $eq: 'wordnet' } }, [1, 'three', 8]],
  ['$ne matches records without the field', { source: { $ne: 'wordnet' } }, [2, 4, 5, 6, 7]],
  ['$gt numbers only (a string year does not match)', { year: { $gt: 1995 } }, [2, 8]],
  ['$gte', { year: { $gte: 1995 } }, [1, 2, 8]],
  ['$lt', { year: { $lt: 1995 } }, [5, 7]],
  ['$lte with a fraction', { year: { $lte: 1990.5 } }, [5, 7]],
  ['a range', { year: { $gte: 1990, $lt: 2000 } }, [1, 5, 7]],
  ['$gt on strings compares strings only', { year: { $gt: '1990' } }, ['three']],
  ['numbers compare numerically (1995 = 1995.0)', { year: 1995.0 }, [1]],
  ['$in', { source: { $in: ['gcide', 'foldoc'] } }, [2, 5]],
  ['$nin matches records without the field', { source: { $nin: ['wordnet', 'gcide'] } }, [4, 5, 6, 7]],
  ['$in []', { source: { $in: [] } }, []],
  ['$exists true', { score: { $exists: true } }, ['three']],
  ['$exists false', { score: { $exists: false } }, but('three')],
  ['$exists true on a null field', { n: { $exists: true } }, [5]],
  ['null equals null only', { n: null }, [5]],
  ['$eq on any array element', { tags: 'a' }, [1, 5]],
  ['$in on any array element', { tags: { $in: ['b', 3] } }, [1, 2, 5]],
  ['$contains: array element or substring', { tags: { $contains: 'a' } }, [1, 5, 7]],
  ['$contains a number element', { tags: { $contains: 3 } }, [5]],
  ['$contains a substring', { title: { $contains: 'quick' } }, [1]],
  ['$contains a substring in several', { title: { $contains: 'o' } }, [1, 2]],
  ['$contains: a number in a string field does not match', { title: { $contains: 5 } }, []],
  ['a dotted path (a string 7 is not the number 7)', { 'user.id': 7 }, [1]],
  ['the nested form of a dotted path', { user: { id: 7 } }, [1]],
  ['a dotted path to a string', { 'user.id': '7' }, [7]],
  ['$exists on a nested field', { 'user.name': { $exists: true } }, [1]],
  ['a deep dotted path', { 'nested.deep.v': 1 }, [5]],
  ['fields of objects inside an array', { 'items.name': 'y' }, [8]],
  ['booleans by equality', { draft: true }, [2]],
  ['false is not absent', { draft: false }, [1]],
  ['$ne true', { draft: { $ne: true } }, but(2)],
  ['type mismatch: a number bound on strings', { source: { $gt: 5 } }, []],
  ['an absent field', { missing: 'x' }, []],
  ['$and', { $and: [{ source: 'wordnet' }, { year: { $gte: 2000 } }] }, [8]],
  ['$or', { $or: [{ source: 'gcide' }, { 'user.id': '7' }] }, [2, 7]],
  ['$not', { $not: { source: 'wordnet' } }, [2, 4, 5, 6, 7]],
  ['fields and $or together', { source: 'wordnet', $or: [{ year: 1995 }, { year: 2010 }] }, [1, 8]],
  ['field-level $not', { year: { $not: { $gt: 1995 } } }, [1, 'three', 4, 5, 6, 7]],
  ['two conditions', { source: 'wordnet', tags: { $exists: true } }, [1, 'three']],
];

async function fixture(api: Api) {
  const col = api.Collection.create({ dim: 3 });
  const vectors = FIXTURE.map((_, i) => [i, 1, -i]);
  await col.add(ALL, vectors, FIXTURE.map(([, m]) => m));
  return col;
}

describe.each(backends)('%s backend: filters', (_name, hv) => {
  it('every operator, dotted paths, arrays and type mismatches: count, search and list agree', async () => {
    const col = await fixture(hv);
    for (const [label, filter, want] of TABLE) {
      expect(await col.count(filter), label).toBe(want.length);
      const exact = await col.search([0, 1, 0], { k: 100, filter, exact: true });
      expect(exact.map((h) => h.id), label).toEqual(want); // distance grows with the row here
      const walked = await col.search([0, 1, 0], { k: 100, filter, exact: false });
      expect(walked.map((h) => h.id), label).toEqual(want);
      expect(col.searchSync([0, 1, 0], { k: 100, filter }).map((h) => h.id), label).toEqual(want);
      const [batch] = await col.searchBatch([[0, 1, 0]], { k: 100, filter });
      expect(batch.map((h) => h.id), label).toEqual(want);
      const page = await col.list({ filter });
      expect(page.records.map((r) => r.id), label).toEqual(want);
      expect(page.cursor).toBeNull();
      // the reference evaluator of the property test agrees with the hand-made table
      expect(ALL.filter((_, i) => matches(filter, FIXTURE[i][1])), `reference: ${label}`).toEqual(want);
    }
    expect(await col.count()).toBe(ALL.length);
    await col.close();
  });

  it('a bad filter is HV_INVALID_ARGUMENT naming its part, everywhere a filter is taken; nothing changes', async () => {
    const col = await fixture(hv);
    const bad: [unknown, string[]][] = [
      [{ year: { $gtee: 1 } }, ['filter.year.$gtee', 'unknown operator']],
      [{ $andd: [{ a: 1 }] }, ['filter.$andd', 'unknown operator']],
      [{ tags: { $in: 'a' } }, ['filter.tags.$in', 'array']],
      [{ year: { $gt: true } }, ['filter.year.$gt']],
      [{ year: { $exists: 1 } }, ['filter.year.$exists']],
      [{ $or: { a: 1 } }, ['filter.$or']],
      [{ $or: [] }, ['filter.$or']],
      [{ $and: [{ a: 1 }, { b: { $lt: [1] } }] }, ['filter.$and[1].b.$lt']],
      [{ tags: ['a'] }, ['filter.tags', '$in']],
      [{ year: {} }, ['filter.year']],
      [{ user: { id: 1, $gt: 2 } }, ['filter.user', 'mixes']],
      [5, ['filter', 'object']],
      [[{ a: 1 }], ['filter', 'object']],
      [null, ['filter', 'object']],
      [Array.from({ length: 40 }).reduce<object>((f) => ({ $not: f }), { a: 1 }), ['nested deeper than 32']],
      [{ a: { $in: Array.from({ length: 1100 }, (_, i) => i) } }, ['filter.a.$in', 'more than 1024']],
    ];
    for (const [filter, parts] of bad) {
      const f = filter as Filter;
      await expectInvalid(col.search([0, 1, 0], { k: 3, filter: f }), ...parts);
      await expectInvalid(() => col.searchSync([0, 1, 0], { k: 3, filter: f }), ...parts);
      await expectInvalid(col.searchBatch([[0, 1, 0]], { k: 3, filter: f }), ...parts);
      await expectInvalid(col.count(f), ...parts);
      await expectInvalid(col.list({ filter: f }), ...parts);
      await expectInvalid(col.deleteWhere(f), ...parts);
    }
    expect(col.size).toBe(ALL.length);
    await col.close();
  });

  it('values JSON cannot carry are HV_INVALID_ARGUMENT naming their path (never silently dropped)', async () => {
    const col = await fixture(hv);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    class Year { gte = 1990; }
    const bad: [unknown, string][] = [
      [{ year: undefined }, 'filter.year is undefined'],
      [{ year: { $gt: undefined } }, 'filter.year.$gt is undefined'],
      [{ year: { $gt: NaN } }, 'filter.year.$gt is NaN'],
      [{ year: { $lt: Infinity } }, 'filter.year.$lt is Infinity'],
      [{ year: { $lt: -Infinity } }, 'filter.year.$lt is -Infinity'],
      [{ f: () => 1 }, 'filter.f is a function'],
      [{ s: Symbol('x') }, 'filter.s is a symbol'],
      [{ b: 10n }, 'filter.b is a bigint'],
      [{ d: { $gt: new Date(0) } }, 'filter.d.$gt is a Date'],
      [{ m: new Map() }, 'filter.m is a Map'],
      [{ y: new Year() }, 'filter.y is a Year'],
      [{ t: { $in: new Set([1]) } }, 'filter.t.$in is a Set'],
      [{ t: { $in: new Float64Array(2) } }, 'filter.t.$in is a Float64Array'],
      // eslint-disable-next-line no-sparse-arrays
      [{ t: { $in: [1, , 2] } }, 'filter.t.$in[1] is undefined'],
      [{ $or: [{ a: 1 }, { b: { $eq: NaN } }] }, 'filter.$or[1].b.$eq is NaN'],
      [{ s: '\ud800' }, 'filter.s contains a lone UTF-16 surrogate'],
      [cyclic, 'filter.self refers back to itself'],
      [new Date(0), 'filter is a Date'],
      [{ [Symbol('k')]: 1 }, 'filter has a symbol key'],
    ];
    for (const [filter, part] of bad) {
      const f = filter as Filter;
      await expectInvalid(col.search([0, 1, 0], { k: 3, filter: f }), part);
      await expectInvalid(() => col.searchSync([0, 1, 0], { k: 3, filter: f }), part);
      await expectInvalid(col.count(f), part);
      await expectInvalid(col.list({ filter: f }), part);
      await expectInvalid(col.deleteWhere(f), part);
    }
    // a filter whose getter throws: the caller's exception is the cause
    const boom = new Error('boom');
    const e = await failure(col.count({ get year(): number { throw boom; } } as Filter));
    expect([e.code, e.cause]).toEqual(['HV_INVALID_ARGUMENT', boom]);
    // deleteWhere has no default filter
    await expectInvalid((col.deleteWhere as (f?: Filter) => Promise<number>)(), 'deleteWhere needs a filter');
    expect(col.size).toBe(ALL.length);
    // Object.create(null) and a filter made with JSON.parse are plain objects
    const bare = Object.assign(Object.create(null), { source: 'wordnet' });
    expect(await col.count(bare)).toBe(3);
    expect(await col.count(JSON.parse('{"year":{"$gte":2000}}'))).toBe(2);
    await col.close();
  });

  it('the ids allow-list, alone and with a filter', async () => {
    const col = await fixture(hv);
    const q = [0, 1, 0];
    expect((await col.search(q, { k: 10, ids: [8, 'three', 1, 99, 'nope'] })).map((h) => h.id)).toEqual([1, 'three', 8]);
    expect((await col.search(q, { k: 2, ids: [8, 'three', 1] })).map((h) => h.id)).toEqual([1, 'three']);
    await expectInvalid(col.search(q, { k: 10, ids: [8, 'three', 1], filter: { year: { $type: 1 } } as Filter }), 'filter.year.$type');
    expect((await col.search(q, { k: 10, ids: [8, 'three', 1, 2], filter: { year: { $gte: 1995 } } })).map((h) => h.id)).toEqual([1, 2, 8]);
    expect((await col.search(q, { k: 10, ids: [8, 'three', 1, 2], filter: { source: 'wordnet' }, exact: true })).map((h) => h.id)).toEqual([1, 'three', 8]);
    expect(await col.search(q, { k: 10, ids: [] })).toEqual([]);
    // '1' is not 1
    expect(await col.search(q, { k: 10, ids: ['1'] })).toEqual([]);
    expect(col.searchSync(q, { k: 10, ids: [6, 4] }).map((h) => h.id)).toEqual([4, 6]);
    expect((await col.searchBatch([q, q], { k: 1, ids: [7] })).map((hs) => hs.map((h) => h.id))).toEqual([[7], [7]]);
    // refused ids
    await expectInvalid(col.search(q, { k: 1, ids: 'a' as never }), 'ids must be an array');
    await expectInvalid(col.search(q, { k: 1, ids: [1, { id: 2 }] as never }), 'ids[1]');
    await expectInvalid(col.search(q, { k: 1, ids: [NaN] }), 'ids[0]');
    await expectInvalid(col.search(q, { k: 1, ids: ['\udc00'] }), 'ids[0]', 'surrogate');
    await expectCode(col.search(q, { k: 1, ids: [-1] }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.search(q, { k: 1, ids: [1.5] }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.search(q, { k: 1, ids: [2 ** 53] }), 'HV_INVALID_ARGUMENT');
    await col.close();
  });

  it('unknown option names are HV_INVALID_ARGUMENT (a misspelt filter is never ignored)', async () => {
    const col = await fixture(hv);
    const q = [0, 1, 0];
    const o = { k: 1, filtr: { source: 'gcide' } } as never;
    await expectInvalid(col.search(q, o), 'unknown search option "filtr"');
    await expectInvalid(() => col.searchSync(q, o), 'unknown search option "filtr"');
    await expectInvalid(col.searchBatch([q], o), 'unknown search option "filtr"');
    await expectInvalid(col.search(q, { k: 1, filter: {}, idz: [] } as never), 'unknown search option "idz"');
    await expectInvalid(col.list({ limt: 1 } as never), 'unknown list option "limt"');
    await expectInvalid(col.list({ includeVector: true } as never), 'unknown list option "includeVector"');
    await expectInvalid(col.buildIndex({ Rr: 3 } as never), 'unknown buildIndex option "Rr"');
    if (hv.backend === 'native') {
      await expectInvalid(hv.Collection.open('/nonexistent/never', { dim: 3, maxMutable: 1 } as never), 'unknown open option "maxMutable"');
    }
    await col.close();
  });

  it('metadata is indexed to its deepest level (128); deeper metadata is refused at write time; list([]) is refused as options', async () => {
    const col = hv.Collection.create({ dim: 2 });
    let m: Record<string, unknown> = { v: 1 };
    for (let i = 0; i < 100; i++) m = { d: m };
    await col.add(1, [1, 0], m);
    const path = `${'d.'.repeat(100)}v`;
    expect(await col.count({ [path]: 1 })).toBe(1);
    expect(await col.count({ [path]: { $exists: false } })).toBe(0);
    expect(await col.deleteWhere({ [path]: { $ne: 1 } })).toBe(0);
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    await expectInvalid(col.add(2, [0, 1], { deep } as never), 'deeper than 128 levels');
    expect(col.size).toBe(1);
    await expectInvalid(col.list([] as never), 'list options must be an object');
    await col.close();
  });

  it('exactly min(k, matches) hits at tiny selectivity, through the index, on the real sample', async () => {
    const s = loadSample();
    const sources = loadSources();
    const N = 3000;
    const base = s.base.subarray(0, N * s.dim);
    const col = hv.Collection.create({ dim: s.dim, metric: 'cosine' });
    const meta = Array.from({ length: N }, (_, i) => ({ source: sources[i], bucket: i % 100, uniq: i }));
    await col.add([...Array(N).keys()], base, meta);
    await col.buildIndex({ seed: 3 });
    expect(col.stats().mode).toMatch(/^vamana/);
    const k = 10;
    const jargon = meta.filter((m) => m.source === 'jargon').map((m) => m.uniq);
    expect(jargon.length).toBe(17);
    const kMinus1 = [17, 400, 801, 1202, 1603, 2004, 2405, 2806, 2999];
    const cases: [string, Filter, number][] = [
      ['one match', { uniq: 1234 }, 1],
      ['no match', { uniq: -1 }, 0],
      ['no match (absent field)', { absent: 1 }, 0],
      ['k - 1 matches', { uniq: { $in: kMinus1 } }, k - 1],
      ['k matches', { uniq: { $in: [...kMinus1, 5] } }, k],
      ['0.57 % (jargon)', { source: 'jargon' }, jargon.length],
      ['1 %', { bucket: 42 }, 30],
      ['a range, 3 %', { uniq: { $gte: 1000, $lt: 1090 } }, 90],
      ['$nin, 99 %', { bucket: { $nin: [0] } }, 2970],
    ];
    const nq = 20;
    const queries = s.queries.data.subarray(0, nq * s.dim);
    expect(col.stats().filtered).toEqual({ scans: 0, codeScans: 0, twoHop: 0, walks: 0, fallbacks: 0 });
    for (const [label, filter, count] of cases) {
      expect(await col.count(filter), label).toBe(count);
      const want = Math.min(k, count);
      const [batch, exact] = await Promise.all([
        col.searchBatch(queries, { k, filter }),
        col.searchBatch(queries, { k, filter, exact: true }),
      ]);
      let found = 0;
      for (let j = 0; j < nq; j++) {
        const q = queries.subarray(j * s.dim, (j + 1) * s.dim);
        const single = await col.search(q, { k, filter, exact: false });
        for (const hits of [batch[j], single]) {
          expect(hits.length, `${label}: query ${j}`).toBe(want);
          for (const h of hits) expect(matches(filter, meta[h.id as number]), `${label}: hit ${h.id}`).toBe(true);
          expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
        }
        // exact: true with a filter is exact (against a brute force over the matches)
        const truth = meta.filter((m) => matches(filter, m))
          .map((m) => ({ id: m.uniq, d: refDistance('cosine', q, base.subarray(m.uniq * s.dim, (m.uniq + 1) * s.dim)) }))
          .sort((a, b) => a.d - b.d || a.id - b.id).slice(0, k);
        expect(exact[j].length).toBe(want);
        exact[j].forEach((h, i) => expect(h.distance).toBeCloseTo(truth[i].d, 4));
        const wantIds = new Set(truth.map((t) => t.id));
        found += batch[j].filter((h) => wantIds.has(h.id as number)).length;
      }
      if (want > 0) expect(found / (want * nq), `${label}: recall@10`).toBeGreaterThanOrEqual(0.9);
    }
    // the default picked the exact scan (at most 500 matches) or the code scan (99 %: 2,970);
    // exact: false walks: two-hop below 30 % selectivity, plain from 30 % (what came back short
    // was redone as a scan)
    const used = col.stats().filtered;
    expect(used.scans).toBeGreaterThan(0);
    expect(used.codeScans).toBeGreaterThan(0);
    expect(used.twoHop).toBeGreaterThan(0);
    expect(used.walks).toBeGreaterThan(0);
    await col.close();
  });

  it('count, list (cursor paging, stable order, includeVectors) and deleteWhere', async () => {
    const col = hv.Collection.create({ dim: 2 });
    const n = 250;
    const ids = Array.from({ length: n }, (_, i) => (i % 5 === 0 ? `s${i}` : i));
    const flat = new Float32Array(n * 2).map((_, j) => (j % 2 === 0 ? Math.floor(j / 2) : -j));
    await col.add(ids, flat, ids.map((_, i) => (i % 7 === 0 ? undefined : { i, even: i % 2 === 0 })));
    expect(await col.list()).toMatchObject({ cursor: expect.any(String) });
    // default limit 100, every record once, in insertion order
    const seen: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof col.list>> = await col.list({ cursor });
      expect(page.records.length).toBe(pages < 2 ? 100 : 50);
      for (const r of page.records) {
        expect(r.vector).toBeUndefined();
        const i = ids.indexOf(r.id);
        if (i % 7 === 0) expect('metadata' in r).toBe(false);
        else expect(r.metadata).toEqual({ i, even: i % 2 === 0 });
        seen.push(r.id);
      }
      cursor = page.cursor;
      pages++;
    } while (cursor !== null);
    expect([pages, seen]).toEqual([3, ids]);
    // a filter, a small limit and vectors
    const evens: unknown[] = [];
    cursor = null;
    do {
      const page: Awaited<ReturnType<typeof col.list>> = await col.list({ filter: { even: true }, limit: 7, cursor, includeVectors: true });
      expect(page.records.length).toBeLessThanOrEqual(7);
      for (const r of page.records) {
        expect(r.vector).toEqual(col.get(r.id)!.vector);
        evens.push(r.id);
      }
      cursor = page.cursor;
    } while (cursor !== null);
    expect(evens).toEqual(ids.filter((_, i) => i % 7 !== 0 && i % 2 === 0));
    expect(await col.count({ even: true })).toBe(evens.length);
    // writes between pages: the records that existed throughout come exactly once
    const first = await col.list({ limit: 60 });
    await col.upsert([ids[10], ids[200]], [[1, 1], [2, 2]], [{ moved: 1 }, { moved: 2 }]);
    await col.delete([ids[150]]);
    await col.add(['late'], [[3, 3]]);
    const rest: unknown[] = [];
    cursor = first.cursor;
    while (cursor !== null) {
      const page: Awaited<ReturnType<typeof col.list>> = await col.list({ cursor, limit: 1000 });
      rest.push(...page.records.map((r) => r.id));
      cursor = page.cursor;
    }
    const all = [...first.records.map((r) => r.id), ...rest];
    expect(all).toEqual([...ids.filter((id) => id !== ids[150]), 'late']);
    // bad list arguments
    await expectCode(col.list({ limit: 0 }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.list({ limit: 10_001 }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.list({ limit: 1.5 }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.list({ limit: '5' as never }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.list({ cursor: 5 as never }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.list({ cursor: 'not a cursor' }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.list({ includeVectors: 1 as never }), 'HV_INVALID_ARGUMENT');
    await expectCode(col.list(null as never), 'HV_INVALID_ARGUMENT');
    expect((await col.list({ limit: 10_000 })).records.length).toBe(n);

    // deleteWhere: the count, the records gone, the others intact
    const size = col.size;
    const odd = await col.count({ even: false });
    expect(await col.deleteWhere({ even: false })).toBe(odd);
    expect(col.size).toBe(size - odd);
    expect(await col.count({ even: false })).toBe(0);
    expect(col.get(ids[1])).toBeUndefined();
    expect(col.get(ids[2])?.metadata).toEqual({ i: 2, even: true });
    expect(col.get(ids[7])?.metadata).toBeUndefined(); // no metadata: not matched by even: false
    expect(await col.deleteWhere({ even: false })).toBe(0);
    expect((await col.search([0, 0], { k: 1000 })).length).toBe(size - odd);
    // ordered like delete: a write called after it is not deleted, one called before is
    const before = col.add('before', [0, 0], { even: false });
    const del = col.deleteWhere({ even: false });
    const after = col.add('after', [0, 0], { even: false });
    await Promise.all([before, after]);
    expect(await del).toBe(1);
    expect(col.get('before')).toBeUndefined();
    expect(col.get('after')).toBeDefined();
    // {} deletes everything
    const left = col.size;
    expect(await col.deleteWhere({})).toBe(left);
    expect([col.size, await col.count(), (await col.list()).records, (await col.list()).cursor]).toEqual([0, 0, [], null]);
    await col.close();
    await expectCode(col.count(), 'HV_CLOSED');
    await expectCode(col.list(), 'HV_CLOSED');
    await expectCode(col.deleteWhere({}), 'HV_CLOSED');
  });

  it('upsert of one id twice in a batch: the last one wins (add still refuses it)', async () => {
    const col = hv.Collection.create({ dim: 2 });
    await col.upsert([1, 2, 1], [[1, 1], [2, 2], [3, 3]], [{ v: 'first' }, { v: 'two' }, { v: 'last' }]);
    expect(col.size).toBe(2);
    expect(col.get(1)).toEqual({ vector: new Float32Array([3, 3]), metadata: { v: 'last' } });
    expect(await col.count({ v: 'first' })).toBe(0);
    expect(await col.count({ v: 'last' })).toBe(1);
    await col.upsert(['a', 'a'], [[5, 5], [6, 6]]);
    expect(col.get('a')).toEqual({ vector: new Float32Array([6, 6]), metadata: undefined });
    await expectCode(col.add([9, 9], [[1, 1], [2, 2]]), 'HV_DUPLICATE_ID');
    // the earlier occurrences are dropped: a new id takes the place of its last one in the batch
    expect((await col.list()).records.map((r) => r.id)).toEqual([2, 1, 'a']);
    await col.close();
  });

  it('filters survive a snapshot round trip, on both backends', async () => {
    const col = await fixture(hv);
    await col.delete([2]);
    const bytes = await col.toBytes();
    for (const [, to] of backends) {
      const copy = await to.Collection.fromBytes(bytes);
      for (const [label, filter, want] of TABLE) {
        const live = want.filter((id) => id !== 2);
        expect(await copy.count(filter), label).toBe(live.length);
        expect((await copy.search([0, 1, 0], { k: 100, filter })).map((h) => h.id), label).toEqual(live);
        expect((await copy.list({ filter })).records.map((r) => r.id), label).toEqual(live);
      }
      await copy.close();
    }
    await col.close();
  });

  it('property: filtered search (exact, and through an index) against a brute-force filter', async () => {
    const r = rng(20_140);
    const dim = 8;
    const n = 600;
    const data = randomVectors(n, dim, 5);
    const records: Rec[] = Array.from({ length: n }, (_, i) => ({ id: i % 3 === 0 ? `r${i}` : i, vector: data.subarray(i * dim, (i + 1) * dim), meta: randomMeta(r) }));
    const col = hv.Collection.create({ dim });
    await col.add(records.map((x) => x.id), data, records.map((x) => x.meta));
    const queries = randomVectors(8, dim, 6);
    const check = async (indexed: boolean) => {
      for (let t = 0; t < 150; t++) {
        const filter = randomFilter(r) as Filter;
        const label = `${indexed ? 'indexed' : 'flat'} ${JSON.stringify(filter)}`;
        const matching = records.filter((x) => matches(filter, x.meta));
        expect(await col.count(filter), label).toBe(matching.length);
        const listed = await col.list({ filter, limit: 10_000 });
        expect(listed.records.map((x) => x.id), label).toEqual(matching.map((x) => x.id));
        const q = queries.subarray((t % 8) * dim, (t % 8 + 1) * dim);
        const k = [1, 5, 10, 40][t % 4];
        // an allow-list now and then
        const allow = t % 5 === 0 ? records.filter((_, i) => i % 4 === t % 4).map((x) => x.id) : undefined;
        const want = bruteTopK('l2', records, q, k, filter, allow && new Set(allow));
        const got = await col.search(q, { k, filter, exact: true, ...(allow ? { ids: allow } : {}) });
        expect(got.length, label).toBe(want.length);
        got.forEach((h, i) => {
          // the same id, or an f32 near-tie with the reference's f64 order
          if (h.id !== want[i].id) expect(Math.abs(h.distance - want[i].d), label).toBeLessThan(1e-5);
        });
        const walked = await col.search(q, { k, filter, exact: false, ...(allow ? { ids: allow } : {}) });
        expect(walked.length, `${label}: min(k, matches) hits`).toBe(want.length);
        const ok = new Set(records.filter((x) => matches(filter, x.meta) && (!allow || allow.includes(x.id))).map((x) => x.id));
        for (const h of walked) expect(ok.has(h.id), `${label}: ${h.id} matches`).toBe(true);
      }
    };
    await check(false);
    await col.buildIndex({ seed: 1, R: 16, L: 32 });
    await check(true);
    await col.close();
  });
});
