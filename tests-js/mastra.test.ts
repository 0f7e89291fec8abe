// horosvec/mastra: the real MastraVector subclass through what Mastra's docs and its stores'
// tests exercise (index lifecycle, upsert with and without ids, deleteFilter, query with every
// filter operator Mastra documents, includeVector, update, delete, bad input), on the shipped
// sample's real texts and vectors, on both backends: wasm through an in-memory database of
// 'horosvec/wasm', native through a durable directory. Recall is checked against an exact brute
// force over the same vectors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MastraError } from '@mastra/core/error';
import * as wasm from 'horosvec/wasm';

// '@mastra/core/vector' ships declarations that do not compile under this repo's
// `skipLibCheck: false` (its bundled AI SDK types), so neither it nor 'horosvec/mastra' (whose
// typings extend its MastraVector) is imported statically here: they are loaded at run time
// (untyped), and the typings are checked by the last test, with tsc under `skipLibCheck: true`
// as applications compile them.
/* eslint-disable @typescript-eslint/no-explicit-any */
const MASTRA_VECTOR: string = '@mastra/core/vector';
const ADAPTER: string = 'horosvec/mastra';
const { MastraVector } = (await import(MASTRA_VECTOR)) as { MastraVector: abstract new (...args: any[]) => object };
type Hit = { id: string; score: number; metadata?: Record<string, any>; vector?: number[] };
interface Store {
  createIndex(p: object): Promise<void>;
  listIndexes(): Promise<string[]>;
  describeIndex(p: object): Promise<{ dimension: number; count: number; metric?: string }>;
  deleteIndex(p: object): Promise<void>;
  upsert(p: object): Promise<string[]>;
  query(p: object): Promise<Hit[]>;
  updateVector(p: object): Promise<void>;
  deleteVector(p: object): Promise<void>;
  deleteVectors(p: object): Promise<void>;
  database(): Promise<any>;
  close(): Promise<void>;
}
const { HorosvecVector, HorosvecFilterTranslator, METRICS } = (await import(ADAPTER)) as {
  HorosvecVector: new (config: object) => Store;
  HorosvecFilterTranslator: new () => { translate(filter: object): object | undefined };
  METRICS: Record<string, string>;
};
type HorosvecVector = Store;

type Doc = { id: string; text: string; source: string; rank: number; vector: Float32Array };
type Meta = Record<string, unknown>;
const root = fileURLToPath(new URL('..', import.meta.url));
// the sample loader is plain JS (examples/lib): imported through a variable, untyped
const samplePath: string = join(root, 'examples/lib/sample.mjs');
let docs: Doc[] = [];
let queries: { text: string; vector: Float32Array }[] = [];
const N = 3000;
const dirs: string[] = [];

beforeAll(async () => {
  const s = await import(samplePath);
  const all = s.loadSample();
  // the sample names a few ids twice (two senses of a word): keep the first of each
  const seen = new Set<string>();
  docs = (all.docs as Doc[]).filter((d) => !seen.has(d.id) && seen.add(d.id)).slice(0, N);
  queries = all.queries.slice(0, 40);
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// the metadata each sample record gets: real fields plus shapes the filter operators need
function metaOf(d: Doc, i: number): Meta {
  const m: Meta = {
    text: d.text,
    source: d.source,
    rank: d.rank,
    tags: [d.source, d.rank % 2 === 0 ? 'even' : 'odd'],
    nested: { bucket: d.rank % 10 },
    day: new Date(Date.UTC(2020, 0, 1 + (i % 365))).toISOString(),
  };
  if (i % 7 !== 0) m.reviewed = i % 3 === 0;
  return m;
}

const toArray = (v: Float32Array) => Array.from(v);

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { d += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return d / Math.sqrt(na * nb);
}
function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i] * b[i];
  return d;
}
function sqdist(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += (a[i] - b[i]) ** 2;
  return d;
}
// Mastra's score per metric: similarity, higher is better
const SCORE = {
  cosine,
  dotproduct: dot,
  euclidean: (a: ArrayLike<number>, b: ArrayLike<number>) => 1 / (1 + sqdist(a, b)),
};

async function expectMastra(p: Promise<unknown>, idPart: string, category = 'USER'): Promise<MastraError> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(err, `expected a MastraError ${idPart}`).toBeInstanceOf(MastraError);
  const m = err as MastraError;
  expect(m.id).toContain(idPart);
  expect(m.category).toBe(category);
  return m;
}

const stores: [string, () => Promise<HorosvecVector>][] = [
  ['wasm (in-memory database)', async () => new HorosvecVector({ database: await wasm.openDatabase() })],
  ['native (durable directory)', async () => {
    const d = mkdtempSync(join(tmpdir(), 'horosvec-mastra-'));
    dirs.push(d);
    return new HorosvecVector({ path: d, durability: 'normal' });
  }],
];

describe.each(stores)('%s', (_name, make) => {
  let store: HorosvecVector;
  const INDEX = 'sample';
  let ids: string[] = [];

  beforeAll(async () => {
    store = await make();
    await store.createIndex({ indexName: INDEX, dimension: 384, metric: 'cosine' });
    ids = docs.map((d) => d.id);
    // in batches, as an ingest pipeline would
    for (let i = 0; i < N; i += 1000) {
      const part = docs.slice(i, i + 1000);
      const got = await store.upsert({ indexName: INDEX, vectors: part.map((d) => toArray(d.vector)), metadata: part.map((d, j) => metaOf(d, i + j)), ids: part.map((d) => d.id) });
      expect(got).toEqual(part.map((d) => d.id));
    }
  });
  afterAll(async () => {
    const db = await store.database();
    await store.close();
    if (_name.startsWith('wasm')) await db.close();
  });

  it('is a real MastraVector', () => {
    expect(store).toBeInstanceOf(MastraVector);
    expect(METRICS).toEqual({ cosine: 'cosine', euclidean: 'l2', dotproduct: 'ip' });
  });

  it('creates, lists, describes and deletes indexes', async () => {
    for (const metric of ['cosine', 'euclidean', 'dotproduct'] as const) {
      await store.createIndex({ indexName: `m_${metric}`, dimension: 8, metric });
      expect(await store.describeIndex({ indexName: `m_${metric}` })).toEqual({ dimension: 8, count: 0, metric });
    }
    await store.createIndex({ indexName: 'plain', dimension: 4 }); // metric defaults to cosine
    expect((await store.describeIndex({ indexName: 'plain' })).metric).toBe('cosine');
    expect(await store.listIndexes()).toEqual(['m_cosine', 'm_dotproduct', 'm_euclidean', 'plain', INDEX]);
    expect(await store.describeIndex({ indexName: INDEX })).toEqual({ dimension: 384, count: N, metric: 'cosine' });
    // the same dimension again is a no-op (as Mastra's stores do); another dimension fails
    await store.createIndex({ indexName: 'plain', dimension: 4, metric: 'cosine' });
    // concurrent creates of one index (an app's startup): all succeed, one index
    await Promise.all([1, 2, 3].map(() => store.createIndex({ indexName: 'racing', dimension: 4 })));
    expect((await store.listIndexes()).filter((n: string) => n === 'racing')).toHaveLength(1);
    await store.deleteIndex({ indexName: 'racing' });
    await expectMastra(store.createIndex({ indexName: 'plain', dimension: 5 }), 'DIMENSION_MISMATCH');
    await expectMastra(store.createIndex({ indexName: 'PLAIN', dimension: 4 }), 'CREATE_INDEX_FAILED');
    await expectMastra(store.createIndex({ indexName: 'bad name', dimension: 4 }), 'CREATE_INDEX_FAILED');
    await expectMastra(store.createIndex({ indexName: 'x', dimension: 0 }), 'CREATE_INDEX_INVALID_ARGS');
    await expectMastra(store.createIndex({ indexName: 'x', dimension: 3.5 }), 'CREATE_INDEX_INVALID_ARGS');
    await expectMastra(store.createIndex({ indexName: 'x', dimension: 4, metric: 'l2' as 'cosine' }), 'CREATE_INDEX_INVALID_ARGS');
    await expectMastra(store.describeIndex({ indexName: 'absent' }), 'DESCRIBE_INDEX_INDEX_NOT_FOUND');
    await expectMastra(store.query({ indexName: 'absent', queryVector: [1, 2, 3, 4] }), 'QUERY_INDEX_NOT_FOUND');
    for (const n of ['m_cosine', 'm_euclidean', 'm_dotproduct', 'plain']) await store.deleteIndex({ indexName: n });
    await store.deleteIndex({ indexName: 'plain' }); // absent: a no-op
    expect(await store.listIndexes()).toEqual([INDEX]);
  });

  it('scores are similarities per metric (higher is better), matching the exact values', async () => {
    const few = docs.slice(0, 200);
    const q = toArray(queries[0].vector);
    for (const metric of ['cosine', 'euclidean', 'dotproduct'] as const) {
      const name = `score_${metric}`;
      await store.createIndex({ indexName: name, dimension: 384, metric });
      await store.upsert({ indexName: name, vectors: few.map((d) => toArray(d.vector)), ids: few.map((d) => d.id) });
      const hits = await store.query({ indexName: name, queryVector: q, topK: 200 });
      expect(hits).toHaveLength(200);
      const byId = new Map(few.map((d) => [d.id, d.vector]));
      for (let i = 0; i < hits.length; i++) {
        expect(hits[i].score).toBeCloseTo(SCORE[metric](q, byId.get(hits[i].id)!), 4);
        if (i > 0) expect(hits[i].score).toBeLessThanOrEqual(hits[i - 1].score + 1e-6);
      }
      await store.deleteIndex({ indexName: name });
    }
  });

  it('recall@10 against an exact brute force, unfiltered and filtered', async () => {
    let found = 0, total = 0, fFound = 0, fTotal = 0;
    for (const q of queries) {
      const qa = toArray(q.vector);
      const exact = docs.map((d) => ({ id: d.id, s: cosine(qa, d.vector), d })).sort((a, b) => b.s - a.s);
      const hits = await store.query({ indexName: INDEX, queryVector: qa, topK: 10 });
      expect(hits).toHaveLength(10);
      const want = new Set(exact.slice(0, 10).map((e) => e.id));
      found += hits.filter((h) => want.has(h.id)).length;
      total += 10;
      const fh = await store.query({ indexName: INDEX, queryVector: qa, topK: 10, filter: { source: 'wordnet' } });
      expect(fh.every((h) => h.metadata!.source === 'wordnet')).toBe(true);
      const fWant = new Set(exact.filter((e) => e.d.source === 'wordnet').slice(0, 10).map((e) => e.id));
      fFound += fh.filter((h) => fWant.has(h.id)).length;
      fTotal += 10;
    }
    expect(found / total).toBeGreaterThanOrEqual(0.9);
    expect(fFound / fTotal).toBeGreaterThanOrEqual(0.9);
  });

  it('returns the metadata as upserted, and the vector with includeVector', async () => {
    const d = docs[5];
    const [hit] = await store.query({ indexName: INDEX, queryVector: toArray(d.vector), topK: 1, includeVector: true });
    expect(hit.id).toBe(d.id);
    expect(hit.metadata).toEqual(metaOf(d, 5));
    expect(hit.vector).toEqual(toArray(d.vector));
    expect(hit.score).toBeCloseTo(1, 5);
    const [plain] = await store.query({ indexName: INDEX, queryVector: toArray(d.vector), topK: 1 });
    expect(plain.vector).toBeUndefined();
    expect(await store.query({ indexName: INDEX, queryVector: toArray(d.vector) })).toHaveLength(10); // topK defaults to 10
  });

  // each filter Mastra documents, against the same predicate evaluated here over the metadata
  const day = (n: number) => new Date(Date.UTC(2020, 0, 1 + n));
  const cases: [string, object, (m: Meta) => boolean][] = [
    ['implicit $eq', { source: 'foldoc' }, (m) => m.source === 'foldoc'],
    ['$eq', { source: { $eq: 'jargon' } }, (m) => m.source === 'jargon'],
    ['$ne', { source: { $ne: 'gcide' } }, (m) => m.source !== 'gcide'],
    ['$gt', { rank: { $gt: 90_000 } }, (m) => (m.rank as number) > 90_000],
    ['$gte', { rank: { $gte: 99_000 } }, (m) => (m.rank as number) >= 99_000],
    ['$lt', { rank: { $lt: 1000 } }, (m) => (m.rank as number) < 1000],
    ['$lte with $gte (a range)', { rank: { $gte: 5000, $lte: 6000 } }, (m) => (m.rank as number) >= 5000 && (m.rank as number) <= 6000],
    ['$gt on strings', { source: { $gt: 'gcide' } }, (m) => (m.source as string) > 'gcide'],
    ['a Date value (ISO string)', { day: { $lt: day(10) } }, (m) => (m.day as string) < day(10).toISOString()],
    ['$in', { source: { $in: ['foldoc', 'jargon'] } }, (m) => ['foldoc', 'jargon'].includes(m.source as string)],
    ['$nin', { source: { $nin: ['gcide', 'wordnet'] } }, (m) => !['gcide', 'wordnet'].includes(m.source as string)],
    ['array field, implicit $eq on an element', { tags: 'odd' }, (m) => (m.tags as string[]).includes('odd')],
    ['$in on an array field', { tags: { $in: ['jargon', 'fortune'] } }, (m) => (m.tags as string[]).some((t) => ['jargon', 'fortune'].includes(t))],
    ['$all', { tags: { $all: ['foldoc', 'even'] } }, (m) => (m.tags as string[]).includes('foldoc') && (m.tags as string[]).includes('even')],
    ['$exists true', { reviewed: { $exists: true } }, (m) => 'reviewed' in m],
    ['$exists false', { reviewed: { $exists: false } }, (m) => !('reviewed' in m)],
    ['boolean $eq', { reviewed: true }, (m) => m.reviewed === true],
    ['$contains (substring)', { text: { $contains: 'computer' } }, (m) => (m.text as string).includes('computer')],
    ['$contains (array element)', { tags: { $contains: 'fortune' } }, (m) => (m.tags as string[]).includes('fortune')],
    ['nested field (dotted)', { 'nested.bucket': 3 }, (m) => (m.nested as { bucket: number }).bucket === 3],
    ['nested field (object)', { nested: { bucket: { $lt: 2 } } }, (m) => (m.nested as { bucket: number }).bucket < 2],
    ['$and', { $and: [{ source: 'wordnet' }, { rank: { $lt: 10_000 } }] }, (m) => m.source === 'wordnet' && (m.rank as number) < 10_000],
    ['several fields (implicit $and)', { source: 'gcide', 'nested.bucket': 0 }, (m) => m.source === 'gcide' && (m.nested as { bucket: number }).bucket === 0],
    ['$or', { $or: [{ source: 'jargon' }, { rank: { $gt: 99_500 } }] }, (m) => m.source === 'jargon' || (m.rank as number) > 99_500],
    ['$not (top level)', { $not: { source: { $in: ['gcide', 'wordnet'] } } }, (m) => !['gcide', 'wordnet'].includes(m.source as string)],
    ['$not (field level)', { rank: { $not: { $lt: 95_000 } } }, (m) => !((m.rank as number) < 95_000)],
    ['$not matches a missing field', { reviewed: { $not: { $eq: false } } }, (m) => m.reviewed !== false],
    ['$nor', { $nor: [{ source: 'gcide' }, { source: 'wordnet' }, { rank: { $lt: 50_000 } }] }, (m) => !(m.source === 'gcide' || m.source === 'wordnet' || (m.rank as number) < 50_000)],
    ['nested logic', { $and: [{ $or: [{ source: 'foldoc' }, { source: 'fortune' }] }, { $not: { tags: 'odd' } }] }, (m) => ['foldoc', 'fortune'].includes(m.source as string) && !(m.tags as string[]).includes('odd')],
  ];

  it.each(cases)('filter %s returns exactly the matching records', async (_label, filter, pred) => {
    const want = docs.map((d, i) => ({ id: d.id, m: metaOf(d, i) })).filter((r) => pred(r.m)).map((r) => r.id).sort();
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(N);
    // topK above the collection: every match comes back
    const hits = await store.query({ indexName: INDEX, queryVector: toArray(queries[1].vector), topK: N, filter });
    expect(hits.map((h) => h.id).sort()).toEqual(want);
  });

  it('refuses the operators horosvec does not support, and malformed filters, clearly', async () => {
    const q = toArray(queries[0].vector);
    for (const [filter, word] of [
      [{ text: { $regex: '^a' } }, '$regex'],
      [{ text: /^a/ }, '$regex'],
      [{ text: { $not: /^a/ } }, '$regex'],
      [{ tags: { $elemMatch: { $eq: 'odd' } } }, '$elemMatch'],
      [{ tags: { $size: 2 } }, '$size'],
      [{ text: { $regex: 'a', $options: 'i' } }, '$regex'],
      [{ source: { $like: 'x' } }, '$like'],
      [{ $eq: 1 }, '$eq'],
      [{ tags: ['a', 'b'] }, 'ambiguous'],
      [{ $and: [] }, '$and'],
      [{ $not: {} }, '$not'],
      [{ rank: { $in: 5 } }, '$in'],
    ] as [object, string][]) {
      const e = await expectMastra(store.query({ indexName: INDEX, queryVector: q, topK: 1, filter }), 'QUERY_INVALID_FILTER');
      expect(e.message).toContain(word);
    }
    // a value the core refuses keeps its horosvec code
    const e = await expectMastra(store.query({ indexName: INDEX, queryVector: q, filter: { rank: { $gt: { a: 1 } } } as object }), 'QUERY_FAILED');
    expect(e.details?.code).toBe('HV_INVALID_ARGUMENT');
    // the translator on its own
    expect(new HorosvecFilterTranslator().translate({ a: { $nin: [1] } })).toEqual({ a: { $nin: [1] } });
    expect(new HorosvecFilterTranslator().translate({})).toBeUndefined();
  });

  it('refuses bad query and upsert input, writing nothing', async () => {
    const q = toArray(queries[0].vector);
    await expectMastra(store.query({ indexName: INDEX, queryVector: q, topK: 0 }), 'INVALID_TOP_K');
    await expectMastra(store.query({ indexName: INDEX, queryVector: q, topK: 2.5 }), 'INVALID_TOP_K');
    await expectMastra(store.query({ indexName: INDEX, topK: 3, filter: { source: 'foldoc' } }), 'QUERY_INVALID_ARGS');
    await expectMastra(store.query({ indexName: INDEX, queryVector: [NaN, ...q.slice(1)] }), 'QUERY_INVALID_ARGS');
    await expectMastra(store.query({ indexName: INDEX, queryVector: [1, 2, 3] }), 'QUERY_FAILED');
    await expectMastra(store.query({ indexName: INDEX, queryVector: q, sparseVector: { indices: [1], values: [1] } }), 'UNSUPPORTED');
    await expectMastra(store.upsert({ indexName: INDEX, vectors: [] }), 'EMPTY_VECTORS');
    await expectMastra(store.upsert({ indexName: INDEX, vectors: [q, q], ids: ['only-one'] }), 'IDS_LENGTH_MISMATCH');
    await expectMastra(store.upsert({ indexName: INDEX, vectors: [q, q], metadata: [{}] }), 'METADATA_LENGTH_MISMATCH');
    await expectMastra(store.upsert({ indexName: INDEX, vectors: [[Infinity, ...q.slice(1)]] }), 'INVALID_VECTOR_VALUE');
    await expectMastra(store.upsert({ indexName: INDEX, vectors: [q, [1, 2]], ids: ['ok-1', 'short'] }), 'UPSERT_FAILED');
    await expectMastra(store.upsert({ indexName: INDEX, vectors: [q], ids: [''] }), 'INVALID_IDS');
    // Mastra metadata is an object per vector (what its filters address)
    await expectMastra(store.upsert({ indexName: INDEX, vectors: [q, q], ids: ['ok-1', 'str'], metadata: [{}, 'text' as unknown as Record<string, unknown>] }), 'INVALID_METADATA');
    await expectMastra(store.upsert({ indexName: INDEX, vectors: [q], ids: ['arr'], metadata: [[1] as unknown as Record<string, unknown>] }), 'INVALID_METADATA');
    await expectMastra(store.upsert({ indexName: 'absent', vectors: [q] }), 'UPSERT_INDEX_NOT_FOUND');
    expect((await store.describeIndex({ indexName: INDEX })).count).toBe(N);
    expect(await store.query({ indexName: INDEX, queryVector: q, topK: 1, filter: { never: 1 } })).toEqual([]);
  });

  describe('writes on a scratch index', () => {
    const S = 'scratch';
    const part = () => docs.slice(0, 300);
    beforeAll(async () => {
      await store.createIndex({ indexName: S, dimension: 384 });
    });

    it('upsert without ids generates unique ids; with ids it replaces', async () => {
      const got = await store.upsert({ indexName: S, vectors: part().slice(0, 50).map((d) => toArray(d.vector)), metadata: part().slice(0, 50).map((d) => ({ text: d.text, gen: true })) });
      expect(new Set(got).size).toBe(50);
      for (const id of got) expect(id).toMatch(/^[0-9a-f-]{36}$/);
      await store.upsert({ indexName: S, vectors: part().map((d) => toArray(d.vector)), metadata: part().map((d) => ({ source: d.source, v: 1 })), ids: part().map((d) => d.id) });
      expect((await store.describeIndex({ indexName: S })).count).toBe(350);
      await store.upsert({ indexName: S, vectors: [toArray(part()[0].vector)], metadata: [{ source: 'replaced', v: 2 }], ids: [part()[0].id] });
      expect((await store.describeIndex({ indexName: S })).count).toBe(350);
      const [hit] = await store.query({ indexName: S, queryVector: toArray(part()[0].vector), topK: 1, filter: { v: 2 } });
      expect(hit).toMatchObject({ id: part()[0].id, metadata: { source: 'replaced', v: 2 } });
      await store.deleteVectors({ indexName: S, filter: { gen: true } });
      expect((await store.describeIndex({ indexName: S })).count).toBe(300);
    });

    it('updateVector by id replaces the vector or the metadata, keeping the other', async () => {
      const [a, b] = part();
      await store.updateVector({ indexName: S, id: a.id, update: { metadata: { source: a.source, note: 'meta only' } } });
      let [hit] = await store.query({ indexName: S, queryVector: toArray(a.vector), topK: 1, includeVector: true });
      expect(hit).toMatchObject({ id: a.id, metadata: { source: a.source, note: 'meta only' }, vector: toArray(a.vector) });
      await store.updateVector({ indexName: S, id: a.id, update: { vector: toArray(b.vector) } });
      const hits = await store.query({ indexName: S, queryVector: toArray(b.vector), topK: 2, includeVector: true });
      expect(hits.map((h) => h.id).sort()).toEqual([a.id, b.id].sort());
      hit = hits.find((h) => h.id === a.id)!;
      expect(hit.metadata).toEqual({ source: a.source, note: 'meta only' });
      expect(hit.vector).toEqual(toArray(b.vector));
      await store.updateVector({ indexName: S, id: a.id, update: { vector: toArray(a.vector), metadata: { source: a.source, v: 1 } } });
      await expectMastra(store.updateVector({ indexName: S, id: 'absent', update: { metadata: {} } }), 'UPDATE_VECTOR_NOT_FOUND');
      await expectMastra(store.updateVector({ indexName: S, id: a.id, update: {} }), 'NO_UPDATES');
      await expectMastra(store.updateVector({ indexName: S, id: a.id, filter: { v: 1 }, update: { metadata: {} } } as never), 'UPDATE_VECTOR_INVALID_ARGS');
      await expectMastra(store.updateVector({ indexName: S, id: a.id, update: { vector: [1, 2] } }), 'UPDATE_VECTOR_FAILED');
    });

    it('updateVector by filter updates every match', async () => {
      const foldoc = part().filter((d) => d.source === 'foldoc').length;
      expect(foldoc).toBeGreaterThan(0);
      await store.updateVector({ indexName: S, filter: { source: 'foldoc' }, update: { metadata: { source: 'foldoc', archived: true } } });
      const q = toArray(queries[2].vector);
      expect(await store.query({ indexName: S, queryVector: q, topK: 300, filter: { archived: true } })).toHaveLength(foldoc);
      await expectMastra(store.updateVector({ indexName: S, filter: {}, update: { metadata: {} } }), 'UPDATE_VECTOR_INVALID_FILTER');
      // vectors were kept: each archived record is still its own nearest neighbour
      const d = part().find((x) => x.source === 'foldoc')!;
      const [hit] = await store.query({ indexName: S, queryVector: toArray(d.vector), topK: 1, filter: { archived: true } });
      expect(hit.id).toBe(d.id);
      expect(hit.score).toBeCloseTo(1, 5);
    });

    it('deleteVector and deleteVectors by ids or by filter', async () => {
      const [a, b, c] = part();
      await store.deleteVector({ indexName: S, id: a.id });
      await store.deleteVector({ indexName: S, id: a.id }); // absent: a no-op
      await store.deleteVectors({ indexName: S, ids: [b.id, c.id] });
      expect((await store.describeIndex({ indexName: S })).count).toBe(297);
      const jargon = part().slice(3).filter((d) => d.source === 'jargon').length;
      await store.deleteVectors({ indexName: S, filter: { $or: [{ source: 'jargon' }, { archived: true }] } });
      const left = await store.query({ indexName: S, queryVector: toArray(queries[3].vector), topK: 300 });
      expect(left.length).toBe(297 - jargon - part().slice(3).filter((d) => d.source === 'foldoc').length);
      expect(left.some((h) => h.metadata!.source === 'jargon' || h.metadata!.archived)).toBe(false);
      await expectMastra(store.deleteVectors({ indexName: S, filter: {} }), 'DELETE_VECTORS_INVALID_FILTER');
      await expectMastra(store.deleteVectors({ indexName: S }), 'DELETE_VECTORS_INVALID_ARGS');
      await expectMastra(store.deleteVectors({ indexName: S, ids: [a.id], filter: { v: 1 } }), 'DELETE_VECTORS_INVALID_ARGS');
      await expectMastra(store.deleteVectors({ indexName: S, ids: [] }), 'DELETE_VECTORS_INVALID_ARGS');
      await expectMastra(store.deleteVector({ indexName: S, id: '' }), 'DELETE_VECTOR_INVALID_ARGS');
      expect((await store.describeIndex({ indexName: S })).count).toBe(left.length);
    });

    it('upsert with deleteFilter replaces a document\'s chunks; the insert is written before the delete', async () => {
      const D = 'replace';
      await store.createIndex({ indexName: D, dimension: 384 });
      const chunks = docs.slice(1000, 1010);
      const others = docs.slice(1010, 1020);
      await store.upsert({ indexName: D, vectors: chunks.map((d) => toArray(d.vector)), metadata: chunks.map((d, i) => ({ doc: 'manual.pdf', i })), ids: chunks.map((_, i) => `manual-${i}`) });
      await store.upsert({ indexName: D, vectors: others.map((d) => toArray(d.vector)), metadata: others.map(() => ({ doc: 'other.pdf' })) });
      // the new version: 4 chunks, two of which reuse old ids
      const fresh = docs.slice(1020, 1024);
      const freshIds = ['manual-0', 'manual-1', 'manual-v2-a', 'manual-v2-b'];
      await store.upsert({ indexName: D, vectors: fresh.map((d) => toArray(d.vector)), metadata: fresh.map(() => ({ doc: 'manual.pdf', v: 2 })), ids: freshIds, deleteFilter: { doc: 'manual.pdf' } });
      const q = toArray(queries[4].vector);
      const manual = await store.query({ indexName: D, queryVector: q, topK: 100, filter: { doc: 'manual.pdf' } });
      expect(manual.map((h) => h.id).sort()).toEqual([...freshIds].sort());
      expect(manual.every((h) => h.metadata!.v === 2)).toBe(true);
      expect(manual.every((h) => !('w' in h.metadata!))).toBe(true); // the envelope's marker stays inside
      expect(await store.query({ indexName: D, queryVector: q, topK: 100, filter: { doc: 'other.pdf' } })).toHaveLength(10);
      // a failed insert deletes nothing
      await expectMastra(store.upsert({ indexName: D, vectors: [[1, 2]], deleteFilter: { doc: 'manual.pdf' } }), 'UPSERT_FAILED');
      expect((await store.describeIndex({ indexName: D })).count).toBe(14);
      // the delete failing after the insert (as a crash between the two writes would): old and new are both there
      const col = await (await store.database()).collection(D);
      const realDeleteWhere = col.deleteWhere.bind(col);
      col.deleteWhere = () => Promise.reject(Object.assign(new Error('HV_IO: simulated'), { code: 'HV_IO' }));
      const v3 = docs.slice(1030, 1032);
      await expectMastra(store.upsert({ indexName: D, vectors: v3.map((d) => toArray(d.vector)), metadata: v3.map(() => ({ doc: 'manual.pdf', v: 3 })), ids: ['v3-a', 'v3-b'], deleteFilter: { doc: 'manual.pdf' } }), 'UPSERT_FAILED', 'THIRD_PARTY');
      expect(await store.query({ indexName: D, queryVector: q, topK: 100, filter: { doc: 'manual.pdf' } })).toHaveLength(6);
      col.deleteWhere = realDeleteWhere;
      // repeating the same upsert finishes it
      await store.upsert({ indexName: D, vectors: v3.map((d) => toArray(d.vector)), metadata: v3.map(() => ({ doc: 'manual.pdf', v: 3 })), ids: ['v3-a', 'v3-b'], deleteFilter: { doc: 'manual.pdf' } });
      expect((await store.query({ indexName: D, queryVector: q, topK: 100, filter: { doc: 'manual.pdf' } })).map((h) => h.id).sort()).toEqual(['v3-a', 'v3-b']);
      await expectMastra(store.upsert({ indexName: D, vectors: [q], deleteFilter: {} }), 'UPSERT_INVALID_FILTER');
      await store.deleteIndex({ indexName: D });
    });
  });
});

describe('constructor and durability', () => {
  it('needs exactly one of path and database', async () => {
    expect(() => new HorosvecVector({})).toThrow(MastraError);
    expect(() => new HorosvecVector({ path: '/tmp/x', database: {} as never })).toThrow(/exactly one/);
    expect(() => new HorosvecVector({ database: {} as never })).toThrow(/openDatabase/);
    expect(() => new HorosvecVector({ path: '' })).toThrow(MastraError);
  });

  it('a durable store keeps its indexes across processes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'horosvec-mastra-'));
    dirs.push(dir);
    const a = new HorosvecVector({ path: dir });
    await a.createIndex({ indexName: 'kept', dimension: 384, metric: 'dotproduct' });
    await a.upsert({ indexName: 'kept', vectors: docs.slice(0, 20).map((d) => toArray(d.vector)), metadata: docs.slice(0, 20).map((d) => ({ source: d.source })), ids: docs.slice(0, 20).map((d) => d.id) });
    await a.close();
    const b = new HorosvecVector({ path: dir });
    expect(await b.describeIndex({ indexName: 'kept' })).toEqual({ dimension: 384, count: 20, metric: 'dotproduct' });
    const [hit] = await b.query({ indexName: 'kept', queryVector: toArray(docs[3].vector), topK: 1 });
    expect(hit.id).toBe(docs[3].id);
    await b.close();
  });
});

describe('examples/mastra.mjs', () => {
  it('runs: ingests the sample into a durable index and retrieves with a filter', () => {
    const r = spawnSync(process.execPath, [join(root, 'examples/mastra.mjs')], { cwd: root, encoding: 'utf8', timeout: 300_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^indexed \d+ texts into "sample" \(384-d, cosine\)/m);
    const lines = r.stdout.split('\n').filter((l) => /^\s+\d\.\d{3} \[foldoc\] /.test(l));
    expect(lines.length).toBe(5);
    expect(r.stdout).toMatch(/^index removed$/m);
  });
});

describe('typings (horosvec/mastra.d.ts)', () => {
  it('type-check as a MastraVector in an application (tsc, skipLibCheck: true)', () => {
    const dir = join(root, 'node_modules', '.cache', `horosvec-mastra-types-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(join(dir, 'probe.ts'), `
import { MastraVector } from '@mastra/core/vector';
import { HorosvecVector, HorosvecFilterTranslator, METRICS } from 'horosvec/mastra';
import { openDatabase } from 'horosvec';
const asMastra: MastraVector = new HorosvecVector({ path: '/tmp/unused' });
const store = new HorosvecVector({ database: await openDatabase() });
const hits = await store.query({ indexName: 'i', queryVector: [1], topK: 3, filter: { source: { $in: ['a'] }, $nor: [{ x: 1 }] }, includeVector: true });
const score: number = hits[0].score;
const ids: string[] = await store.upsert({ indexName: 'i', vectors: [[1]], deleteFilter: { doc: 'x' } });
await store.updateVector({ indexName: 'i', filter: { a: 1 }, update: { metadata: { b: 2 } } });
await store.deleteVectors({ indexName: 'i', ids: ['a'] });
const filter = new HorosvecFilterTranslator().translate({ a: 1 });
const l2: 'l2' = METRICS.euclidean;
// @ts-expect-error a metric name Mastra does not have
await store.createIndex({ indexName: 'i', dimension: 3, metric: 'l2' });
// @ts-expect-error path or database, not a number
new HorosvecVector({ path: 3 });
export { asMastra, score, ids, filter, l2 };
`);
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
        files: ['probe.ts'],
      }));
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      const r = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: root, encoding: 'utf8', timeout: 120_000 });
      expect(r.stdout + r.stderr).toBe('');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
