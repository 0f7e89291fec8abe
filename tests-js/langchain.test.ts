// horosvec/langchain: HorosvecStore through LangChain.js's real classes (@langchain/core's
// Document, Embeddings, VectorStoreRetriever) on the shipped sample's real texts and embeddings,
// through the cases LangChain's docs and its other stores' tests exercise: fromTexts /
// fromDocuments, ids, scores, filters (object and predicate), relevance scores, delete, MMR,
// retrievers, save / load, a durable store reopened, bad inputs. Both backends: native (the
// store's own collection) and wasm (a `Collection` of 'horosvec/wasm' passed in).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Document, type DocumentInterface } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { VectorStoreRetriever } from '@langchain/core/vectorstores';
import { HorosvecStore, type HorosvecStoreArgs } from 'horosvec/langchain';
import * as native from 'horosvec';
import type { Filter } from 'horosvec';
import * as wasm from 'horosvec/wasm';
import { expectCode, refDistance } from './helpers/backends.js';
// @ts-expect-error plain JS helper
import { loadSample } from '../examples/lib/sample.mjs';

type SampleDoc = { id: string; text: string; source: string; rank: number; vector: Float32Array };
const sample = loadSample() as { docs: SampleDoc[]; queries: { text: string; vector: Float32Array }[]; embed: (t: string) => Float32Array };

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'horosvec-langchain-'));
let dirs = 0;
const freshDir = () => join(tmp, `d${dirs++}`);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** LangChain `Embeddings` over the sample's precomputed MiniLM vectors; counts its calls. */
class SampleEmbeddings extends Embeddings {
  documents = 0;
  queries = 0;
  constructor() {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.documents += texts.length;
    return texts.map((t) => Array.from(sample.embed(t)));
  }
  async embedQuery(text: string): Promise<number[]> {
    this.queries++;
    return Array.from(sample.embed(text));
  }
}

const N = 600;
const corpus = sample.docs.slice(0, N);
const queries = sample.queries.slice(0, 25);
const metaOf = (d: SampleDoc) => ({ source: d.source, rank: d.rank });
const byText = new Map(corpus.map((d) => [d.text, d]));

/** Brute-force top k of the corpus docs `keep` accepts, by exact cosine distance. */
function bruteForce(q: ArrayLike<number>, k: number, keep: (d: SampleDoc) => boolean = () => true): { text: string; d: number }[] {
  return corpus
    .filter(keep)
    .map((d) => ({ text: d.text, d: refDistance('cosine', q, d.vector) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, k);
}

/** Fraction of the brute-force top k found, a hit at the k-th distance (a tie) counting as found. */
function recall(got: [DocumentInterface, number][], want: { text: string; d: number }[]): number {
  const wanted = new Set(want.map((w) => w.text));
  const kth = want[want.length - 1].d;
  return got.filter(([doc, s]) => wanted.has(doc.pageContent) || 1 - s <= kth + 1e-5).length / want.length;
}

function cos(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return 1 - refDistance('cosine', a, b);
}
function meanPairwise(docs: DocumentInterface[]): number {
  let s = 0, n = 0;
  for (let i = 0; i < docs.length; i++) for (let j = i + 1; j < docs.length; j++) {
    s += cos(sample.embed(docs[i].pageContent), sample.embed(docs[j].pageContent));
    n++;
  }
  return s / n;
}

// how each backend's store is made: natively the store creates its own collection (lazily);
// for wasm a Collection of 'horosvec/wasm' is passed in
const backends: [string, () => HorosvecStoreArgs, typeof native.Collection][] = [
  ['native', () => ({}), native.Collection],
  ['wasm', () => ({ collection: wasm.Collection.create({ dim: 384, metric: 'cosine' }) }), wasm.Collection as unknown as typeof native.Collection],
];

async function corpusStore(args: HorosvecStoreArgs, emb = new SampleEmbeddings()): Promise<HorosvecStore> {
  return HorosvecStore.fromTexts(corpus.map((d) => d.text), corpus.map(metaOf), emb, args);
}

describe.each(backends)('HorosvecStore (%s)', (name, args, Cls) => {
  it('fromTexts embeds every text once and finds each text as its own nearest document', async () => {
    const emb = new SampleEmbeddings();
    const store = await corpusStore(args(), emb);
    expect(emb.documents).toBe(N);
    expect(store.collection?.size).toBe(N);
    expect(store.dim).toBe(384);
    expect(store.metric).toBe('cosine');
    expect(store._vectorstoreType()).toBe('horosvec');
    expect(store.collection?.stats().backend).toBe(name);
    for (const d of corpus.slice(0, 20)) {
      const [[doc, score]] = await store.similaritySearchWithScore(d.text, 1);
      expect(doc).toBeInstanceOf(Document);
      expect(doc.pageContent).toBe(d.text);
      expect(doc.metadata).toEqual(metaOf(d));
      expect(typeof doc.id).toBe('string');
      expect(score).toBeCloseTo(1, 5);
    }
    // one metadata object for every text
    const shared = await HorosvecStore.fromTexts(corpus.slice(0, 3).map((d) => d.text), { source: 'mixed' }, emb, args());
    expect((await shared.similaritySearch(corpus[0].text, 3)).map((d) => d.metadata)).toEqual([{ source: 'mixed' }, { source: 'mixed' }, { source: 'mixed' }]);
  });

  it('fromDocuments keeps document ids; add with ids returns them; an existing id is replaced (upsert)', async () => {
    const docs = corpus.slice(0, 50).map((d) => new Document({ pageContent: d.text, metadata: metaOf(d), id: d.id }));
    const store = await HorosvecStore.fromDocuments(docs, new SampleEmbeddings(), args());
    const [hit] = await store.similaritySearch(corpus[7].text, 1);
    expect(hit.id).toBe(corpus[7].id);

    const more = corpus.slice(50, 60).map((d) => new Document({ pageContent: d.text, metadata: metaOf(d) }));
    const given = more.map((_, i) => `extra-${i}`);
    expect(await store.addDocuments(more, { ids: given })).toEqual(given);
    const generated = await store.addDocuments(corpus.slice(60, 62).map((d) => new Document({ pageContent: d.text, metadata: {} })));
    expect(generated).toHaveLength(2);
    for (const id of generated) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(store.collection?.size).toBe(62);
    expect((await store.getByIds(['extra-3']))[0]?.pageContent).toBe(corpus[53].text);
    // metadata is JSON: a Date comes back as its ISO string, undefined fields are dropped
    await store.addDocuments([new Document({ pageContent: corpus[70].text, metadata: { when: new Date(0), gone: undefined, tags: ['a'] } })], { ids: ['dated'] });
    expect((await store.getByIds(['dated']))[0]?.metadata).toEqual({ when: '1970-01-01T00:00:00.000Z', tags: ['a'] });
    await store.delete({ ids: ['dated'] });

    // same id, new text and metadata: replaced, not duplicated
    await store.addDocuments([new Document({ pageContent: corpus[100].text, metadata: { edited: true } })], { ids: ['extra-3'] });
    expect(store.collection?.size).toBe(62);
    const [replaced] = await store.getByIds(['extra-3']);
    expect(replaced?.pageContent).toBe(corpus[100].text);
    expect(replaced?.metadata).toEqual({ edited: true });
    const [top] = await store.similaritySearch(corpus[100].text, 1);
    expect(top.id).toBe('extra-3');

    // addVectors with precomputed vectors, ids from the documents
    const vecs = corpus.slice(200, 203).map((d) => Array.from(d.vector));
    const vdocs = corpus.slice(200, 203).map((d) => new Document({ pageContent: d.text, metadata: metaOf(d), id: `v-${d.id}` }));
    expect(await store.addVectors(vecs, vdocs)).toEqual(vdocs.map((d) => d.id));
    expect((await store.similaritySearch(corpus[201].text, 1))[0].id).toBe(`v-${corpus[201].id}`);
  });

  it('scores are cosine similarities, best first, and search matches brute force (recall floor)', async () => {
    const store = await corpusStore(args());
    let found = 0;
    for (const q of queries) {
      const got = await store.similaritySearchWithScore(q.text, 10);
      expect(got).toHaveLength(10);
      for (let i = 1; i < got.length; i++) expect(got[i][1]).toBeLessThanOrEqual(got[i - 1][1]);
      for (const [doc, s] of got) expect(s).toBeCloseTo(cos(q.vector, byText.get(doc.pageContent)!.vector), 4);
      found += recall(got, bruteForce(q.vector, 10));
    }
    expect(found / queries.length).toBeGreaterThanOrEqual(0.99);
    // vector search and k larger than the store
    const all = await store.similaritySearchVectorWithScore(Array.from(queries[0].vector), N + 50);
    expect(all).toHaveLength(N);
  });

  it('a filter object runs in the core: only matches, the exact top k of the matches', async () => {
    const store = await corpusStore(args());
    const filters: [Filter, (d: SampleDoc) => boolean][] = [
      [{ source: 'foldoc' }, (d) => d.source === 'foldoc'],
      [{ rank: { $lt: 10_000 } }, (d) => d.rank < 10_000],
      [{ $and: [{ source: { $in: ['gcide', 'wordnet'] } }, { rank: { $gte: 50_000 } }] }, (d) => ['gcide', 'wordnet'].includes(d.source) && d.rank >= 50_000],
      [{ $not: { source: 'gcide' } }, (d) => d.source !== 'gcide'],
    ];
    for (const [filter, keep] of filters) {
      const matches = corpus.filter(keep).length;
      expect(matches).toBeGreaterThan(5);
      let found = 0;
      for (const q of queries.slice(0, 10)) {
        const got = await store.similaritySearchWithScore(q.text, 5, filter);
        expect(got).toHaveLength(5);
        for (const [doc] of got) expect(keep(byText.get(doc.pageContent)!)).toBe(true);
        found += recall(got, bruteForce(q.vector, 5, keep));
      }
      expect(found / 10).toBeGreaterThanOrEqual(0.99);
    }
    expect(await store.similaritySearch(queries[0].text, 4, { source: 'none' })).toEqual([]);
  });

  it('a predicate filter returns min(k, matches) matching documents, also when matches are rare', async () => {
    const store = await corpusStore(args());
    const rare = corpus.filter((d) => d.source === 'jargon');
    expect(rare.length).toBeGreaterThanOrEqual(2);
    expect(rare.length).toBeLessThan(10);
    const cases: [(doc: DocumentInterface) => boolean, (d: SampleDoc) => boolean, number][] = [
      [(doc) => doc.metadata.source !== 'gcide', (d) => d.source !== 'gcide', 8], // common: over-fetch suffices
      [(doc) => doc.metadata.source === 'jargon', (d) => d.source === 'jargon', 10], // rare: fewer than k exist
      [(doc) => doc.pageContent.includes('(noun)') && doc.metadata.rank % 7 === 0, (d) => d.text.includes('(noun)') && d.rank % 7 === 0, 6],
    ];
    for (const [pred, keep, k] of cases) {
      const want = corpus.filter(keep).length;
      for (const q of queries.slice(0, 5)) {
        const got = await store.similaritySearchWithScore(q.text, k, pred);
        expect(got).toHaveLength(Math.min(k, want));
        for (const [doc] of got) expect(pred(doc)).toBe(true);
        expect(recall(got, bruteForce(q.vector, k, keep))).toBeGreaterThanOrEqual(0.99);
      }
    }
  });

  it('relevance scores are in [0, 1], (1 + cos) / 2 under cosine, best first', async () => {
    const store = await corpusStore(args());
    const fn = store._selectRelevanceScoreFn();
    expect(fn(1)).toBe(1);
    expect(fn(-1)).toBe(0);
    expect(fn(0)).toBe(0.5);
    for (const q of queries.slice(0, 5)) {
      const scored = await store.similaritySearchWithScore(q.text, 6, { source: 'wordnet' });
      const rel = await store.similaritySearchWithRelevanceScores(q.text, 6, { source: 'wordnet' });
      expect(rel.map(([d]) => d.id)).toEqual(scored.map(([d]) => d.id));
      rel.forEach(([, r], i) => {
        expect(r).toBeGreaterThanOrEqual(0);
        expect(r).toBeLessThanOrEqual(1);
        expect(r).toBeCloseTo((1 + scored[i][1]) / 2, 6);
        if (i > 0) expect(r).toBeLessThanOrEqual(rel[i - 1][1]);
      });
    }
    // l2 and ip stores: the similarity in (0, 1] itself, and the clamped (1 + q·x) / 2
    for (const metric of ['l2', 'ip'] as const) {
      const a = name === 'wasm' ? { collection: wasm.Collection.create({ dim: 384, metric }) } : { metric };
      const s = await HorosvecStore.fromTexts(corpus.slice(0, 50).map((d) => d.text), {}, new SampleEmbeddings(), a);
      const [[, r]] = await s.similaritySearchWithRelevanceScores(corpus[3].text, 1);
      expect(r).toBeCloseTo(1, 4); // the text itself: l2 distance 0, ip = ‖x‖² = 1 (unit vectors)
      for (const [, x] of await s.similaritySearchWithRelevanceScores(queries[0].text, 10)) {
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(1);
      }
    }
  });

  it('delete by ids, by a filter object and by a predicate', async () => {
    const docs = corpus.map((d) => new Document({ pageContent: d.text, metadata: metaOf(d), id: d.id }));
    const store = await HorosvecStore.fromDocuments(docs, new SampleEmbeddings(), args());
    await store.delete({ ids: [corpus[0].id, corpus[1].id, 'not-stored'] });
    expect(store.collection?.size).toBe(N - 2);
    expect((await store.similaritySearch(corpus[0].text, 1))[0].id).not.toBe(corpus[0].id);
    expect(await store.getByIds([corpus[0].id, corpus[2].id])).toEqual([undefined, expect.objectContaining({ id: corpus[2].id })]);

    const foldoc = corpus.slice(2).filter((d) => d.source === 'foldoc').length;
    await store.delete({ filter: { source: 'foldoc' } });
    expect(store.collection?.size).toBe(N - 2 - foldoc);
    expect(await store.similaritySearch(queries[0].text, 4, { source: 'foldoc' })).toEqual([]);

    const fortune = corpus.slice(2).filter((d) => d.source === 'fortune').length;
    expect(fortune).toBeGreaterThan(0);
    await store.delete({ filter: (doc: DocumentInterface) => doc.metadata.source === 'fortune' });
    expect(store.collection?.size).toBe(N - 2 - foldoc - fortune);
    const left = await store.similaritySearch(queries[1].text, N);
    expect(left.some((d) => ['foldoc', 'fortune'].includes(d.metadata.source))).toBe(false);
  });

  it('MMR returns diverse results, not the plain top k; lambda 1 is the plain top k', async () => {
    const store = await corpusStore(args());
    let differs = 0;
    let spreadMmr = 0;
    let spreadTop = 0;
    for (const q of queries.slice(0, 10)) {
      const top = await store.similaritySearch(q.text, 4);
      const top20 = new Set((await store.similaritySearch(q.text, 20)).map((d) => d.id));
      const picked = await store.maxMarginalRelevanceSearch(q.text, { k: 4, fetchK: 20, lambda: 0.25 }, undefined);
      expect(picked).toHaveLength(4);
      expect(new Set(picked.map((d) => d.id)).size).toBe(4);
      for (const d of picked) expect(top20.has(d.id)).toBe(true);
      expect(picked[0].id).toBe(top[0].id); // the first pick is the most relevant
      if (picked.map((d) => d.id).join() !== top.map((d) => d.id).join()) differs++;
      spreadMmr += meanPairwise(picked);
      spreadTop += meanPairwise(top);
      const pure = await store.maxMarginalRelevanceSearch(q.text, { k: 4, fetchK: 20, lambda: 1 }, undefined);
      expect(pure.map((d) => d.id)).toEqual(top.map((d) => d.id));
    }
    expect(differs).toBeGreaterThanOrEqual(8);
    // the picks are less alike than the plain top 4 (mean pairwise cosine over the queries)
    expect(spreadMmr).toBeLessThan(spreadTop);
    // with a filter: only matches
    const f = await store.maxMarginalRelevanceSearch(queries[0].text, { k: 3, fetchK: 10, filter: { source: 'wordnet' } }, undefined);
    expect(f).toHaveLength(3);
    for (const d of f) expect(d.metadata.source).toBe('wordnet');
    const g = await store.maxMarginalRelevanceSearch(queries[0].text, { k: 3, filter: (doc: DocumentInterface) => doc.metadata.source === 'jargon' }, undefined);
    for (const d of g) expect(d.metadata.source).toBe('jargon');
  });

  it('asRetriever: similarity (k, filter object or predicate) and MMR', async () => {
    const store = await corpusStore(args());
    const q = queries[2].text;
    const r = store.asRetriever(3);
    expect(r).toBeInstanceOf(VectorStoreRetriever);
    expect((await r.invoke(q)).map((d) => d.id)).toEqual((await store.similaritySearch(q, 3)).map((d) => d.id));
    const rf = store.asRetriever({ k: 5, filter: { source: 'foldoc' } });
    const got = await rf.invoke(q);
    expect(got).toHaveLength(5);
    for (const d of got) expect(d.metadata.source).toBe('foldoc');
    const rp = store.asRetriever(2, (doc: DocumentInterface) => doc.metadata.rank < 20_000);
    for (const d of await rp.invoke(q)) expect(d.metadata.rank).toBeLessThan(20_000);
    const rm = store.asRetriever({ k: 4, searchType: 'mmr', searchKwargs: { fetchK: 20, lambda: 0.25 } });
    const viaMmr = await rm.invoke(q);
    expect(viaMmr.map((d) => d.id)).toEqual((await store.maxMarginalRelevanceSearch(q, { k: 4, fetchK: 20, lambda: 0.25 }, undefined)).map((d) => d.id));
    const direct = new VectorStoreRetriever({ vectorStore: store, k: 2, searchType: 'mmr', filter: { source: 'wordnet' } });
    for (const d of await direct.invoke(q)) expect(d.metadata.source).toBe('wordnet');
    // the retriever adds documents through the store
    const ids = await rf.addDocuments([new Document({ pageContent: corpus[0].text, metadata: { source: 'added' } })]);
    expect(ids).toHaveLength(1);
    expect((await store.similaritySearch(corpus[0].text, 1, { source: 'added' }))[0].id).toBe((ids as string[])[0]);
  });

  it('save / load round trip: the same documents, ids and results, on this backend and across', async () => {
    const store = await corpusStore(args());
    await store.delete({ filter: { source: 'jargon' } });
    const dir = freshDir();
    await store.save(dir);
    expect(readdirSync(dir).sort()).toEqual(['collection.hvsnap', 'horosvec-langchain.json']);
    for (const Into of [Cls, native.Collection, wasm.Collection as unknown as typeof native.Collection]) {
      const loaded = await HorosvecStore.load(dir, new SampleEmbeddings(), { Collection: Into });
      expect(loaded).toBeInstanceOf(HorosvecStore);
      expect(loaded.collection?.size).toBe(store.collection?.size);
      expect(loaded.metric).toBe('cosine');
      for (const q of queries.slice(0, 5)) {
        const a = await store.similaritySearchWithScore(q.text, 5, { rank: { $gt: 20_000 } });
        const b = await loaded.similaritySearchWithScore(q.text, 5, { rank: { $gt: 20_000 } });
        expect(b.map(([d]) => [d.id, d.pageContent, d.metadata])).toEqual(a.map(([d]) => [d.id, d.pageContent, d.metadata]));
        b.forEach(([, s], i) => expect(s).toBeCloseTo(a[i][1], 5));
      }
    }
    // saving again replaces the snapshot; an empty store saves and loads too
    await store.delete({ filter: {} });
    await store.save(dir);
    expect((await HorosvecStore.load(dir, new SampleEmbeddings(), { Collection: Cls })).collection?.size).toBe(0);
    const empty = new HorosvecStore(new SampleEmbeddings());
    const dir2 = freshDir();
    await empty.save(dir2);
    const back = await HorosvecStore.load(dir2, new SampleEmbeddings(), { Collection: Cls });
    expect(back.collection).toBeUndefined();
    await back.addDocuments([new Document({ pageContent: corpus[0].text, metadata: {} })]);
    expect(back.collection?.size).toBe(1);
  });

  it('bad inputs are coded errors and write nothing', async () => {
    const store = await corpusStore(args());
    const q = queries[0].text;
    const v = Array.from(queries[0].vector);
    for (const k of [0, -1, 1.5, NaN]) {
      await expectCode(store.similaritySearch(q, k), 'HV_INVALID_ARGUMENT');
      await expectCode(store.maxMarginalRelevanceSearch(q, { k }, undefined), 'HV_INVALID_ARGUMENT');
    }
    await expectCode(store.maxMarginalRelevanceSearch(q, { k: 2, lambda: 2 }, undefined), 'HV_INVALID_ARGUMENT');
    await expectCode(store.maxMarginalRelevanceSearch(q, { k: 2, fetchK: 0 }, undefined), 'HV_INVALID_ARGUMENT');
    await expectCode(store.similaritySearchVectorWithScore(v.slice(0, 100), 3), 'HV_DIM_MISMATCH');
    // bad filters
    await expectCode(store.similaritySearch(q, 3, 'source = foldoc' as never), 'HV_INVALID_ARGUMENT');
    await expectCode(store.similaritySearch(q, 3, [{ source: 'foldoc' }] as never), 'HV_INVALID_ARGUMENT');
    await expectCode(store.similaritySearch(q, 3, { source: { $regex: 'x' } } as never), 'HV_INVALID_ARGUMENT');
    await expectCode(store.similaritySearch(q, 3, { rank: { $in: 5 } } as never), 'HV_INVALID_ARGUMENT');
    await expectCode(store.delete({ filter: { source: { $bad: 1 } } as never }), 'HV_INVALID_ARGUMENT');
    await expectCode(store.delete({} as never), 'HV_INVALID_ARGUMENT');
    await expectCode(store.delete({ ids: ['a'], filter: {} } as never), 'HV_INVALID_ARGUMENT');
    await expectCode(store.delete({ ids: [1] } as never), 'HV_INVALID_ARGUMENT');
    expect(store.collection?.size).toBe(N);

    const docs = corpus.slice(0, 3).map((d) => new Document({ pageContent: d.text, metadata: {}, id: `new-${d.id}` }));
    const vecs = corpus.slice(0, 3).map((d) => Array.from(d.vector));
    await expectCode(store.addVectors(vecs.slice(0, 2), docs), 'HV_INVALID_ARGUMENT');
    await expectCode(store.addVectors(vecs, docs, { ids: ['x', 'y'] }), 'HV_INVALID_ARGUMENT');
    await expectCode(store.addVectors(vecs, docs, { ids: ['x', '', 'z'] }), 'HV_INVALID_ARGUMENT');
    await expectCode(store.addVectors(vecs, docs, { ids: ['x', 7, 'z'] } as never), 'HV_INVALID_ARGUMENT');
    await expectCode(store.addVectors([vecs[0], vecs[1], vecs[2].slice(0, 10)], docs), 'HV_DIM_MISMATCH');
    await expectCode(store.addVectors([vecs[0], vecs[1], vecs[2].map(() => NaN)], docs), 'HV_INVALID_VECTOR');
    await expectCode(store.addVectors(vecs, [docs[0], docs[1], new Document({ pageContent: 'x', metadata: { f: 10n } })]), 'HV_INVALID_ARGUMENT');
    await expectCode(store.addVectors(vecs, [docs[0], docs[1], { pageContent: 42, metadata: {} } as never]), 'HV_INVALID_ARGUMENT');
    const emb = store.embeddings as SampleEmbeddings;
    const embedded = emb.documents;
    await expectCode(store.addDocuments([docs[0], { metadata: {} } as never]), 'HV_INVALID_ARGUMENT');
    await expectCode(store.addDocuments([docs[0], new Document({ pageContent: 'x', metadata: [1] as never })]), 'HV_INVALID_ARGUMENT');
    await expectCode(store.addDocuments(docs, { ids: ['only-one'] }), 'HV_INVALID_ARGUMENT');
    expect(emb.documents).toBe(embedded); // refused before anything was embedded
    expect(store.collection?.size).toBe(N);
    expect(await store.getByIds(docs.map((d) => d.id!))).toEqual([undefined, undefined, undefined]);

    await expectCode(() => new HorosvecStore(new SampleEmbeddings(), { metric: 'hamming' as never }), 'HV_INVALID_ARGUMENT');
    await expectCode(() => new HorosvecStore(new SampleEmbeddings(), { dim: 0 }), 'HV_INVALID_ARGUMENT');
    await expectCode(() => new HorosvecStore(new SampleEmbeddings(), { collection: {} as never }), 'HV_INVALID_ARGUMENT');
    await expectCode(() => new HorosvecStore(new SampleEmbeddings(), { collection: store.collection, metric: 'l2' }), 'HV_INVALID_ARGUMENT');
    await expectCode(() => new HorosvecStore(new SampleEmbeddings(), { collection: store.collection, dim: 8 }), 'HV_INVALID_ARGUMENT');
    await expectCode(HorosvecStore.load(freshDir(), new SampleEmbeddings()), 'HV_IO');
    const junk = freshDir();
    await new HorosvecStore(new SampleEmbeddings()).save(junk);
    writeFileSync(join(junk, 'horosvec-langchain.json'), '{"format":"something-else"}');
    await expectCode(HorosvecStore.load(junk, new SampleEmbeddings()), 'HV_CORRUPT');
    // a damaged args file names no snapshot, or one outside the directory: HV_CORRUPT, nothing read
    for (const snapshot of [undefined, 7, '../../etc/passwd', '/etc/passwd']) {
      writeFileSync(join(junk, 'horosvec-langchain.json'), JSON.stringify({ format: 'horosvec-langchain', version: 1, metric: 'cosine', dim: 384, snapshot }));
      await expectCode(HorosvecStore.load(junk, new SampleEmbeddings()), 'HV_CORRUPT');
    }
  });

  it('a store without dim takes it from the first add; a failed first add leaves it unset', async () => {
    const store = new HorosvecStore(new SampleEmbeddings(), name === 'native' ? {} : { metric: 'cosine' });
    expect(store.collection).toBeUndefined();
    expect(await store.similaritySearch(queries[0].text, 3)).toEqual([]);
    await store.delete({ ids: ['a'] });
    await expectCode(store.addVectors([[1, 2, 3], [1, 2]], [new Document({ pageContent: 'a' }), new Document({ pageContent: 'b' })]), 'HV_DIM_MISMATCH');
    expect(store.collection).toBeUndefined();
    expect(await store.addVectors([[1, 2], [2, 1]], [new Document({ pageContent: 'a' }), new Document({ pageContent: 'b' })], { ids: ['a', 'b'] })).toEqual(['a', 'b']);
    expect(store.dim).toBe(2);
    expect((await store.similaritySearchVectorWithScore([1, 2], 1))[0][0].id).toBe('a');
  });

  it('a zero vector under cosine (as test embeddings give) is stored, at similarity 0 from every query', async () => {
    const store = new HorosvecStore(new SampleEmbeddings(), { collection: Cls.create({ dim: 4, metric: 'cosine' }) });
    await store.addVectors([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]], ['zero', 'x', 'y'].map((t) => new Document({ pageContent: t })), { ids: ['zero', 'x', 'y'] });
    const hits = await store.similaritySearchVectorWithScore([1, 0.5, 0, 0], 3);
    expect(hits.map(([d]) => d.id)).toEqual(['x', 'y', 'zero']);
    expect(hits[2][1]).toBe(0);
    const fromZero = await store.similaritySearchVectorWithScore([0, 0, 0, 0], 3);
    expect(fromZero.map(([, s]) => s)).toEqual([0, 0, 0]);
  });
});

describe('HorosvecStore.open: a durable store (native)', () => {
  it('open → add → close → reopen keeps the documents; deletes persist; a read-only view reads them', async () => {
    const dir = freshDir();
    await expectCode(HorosvecStore.open(dir, new SampleEmbeddings()), 'HV_INVALID_ARGUMENT'); // no dim to create
    const store = await HorosvecStore.open(dir, new SampleEmbeddings(), { dim: 384 });
    expect(store.metric).toBe('cosine');
    const docs = corpus.map((d) => new Document({ pageContent: d.text, metadata: metaOf(d), id: d.id }));
    await store.addDocuments(docs);
    await expectCode(HorosvecStore.open(dir, new SampleEmbeddings()), 'HV_LOCKED');
    const before = await store.similaritySearchWithScore(queries[0].text, 5, { source: 'gcide' });
    await store.delete({ filter: { source: 'foldoc' } });
    await store.delete({ ids: [corpus[0].id] });
    const size = store.collection!.size;
    await store.close();

    const again = await HorosvecStore.open(dir, new SampleEmbeddings());
    expect(again.metric).toBe('cosine');
    expect(again.dim).toBe(384);
    expect(again.collection!.size).toBe(size);
    const after = await again.similaritySearchWithScore(queries[0].text, 5, { source: 'gcide' });
    expect(after.map(([d]) => [d.id, d.pageContent, d.metadata])).toEqual(before.map(([d]) => [d.id, d.pageContent, d.metadata]));
    expect(await again.similaritySearch(queries[0].text, 3, { source: 'foldoc' })).toEqual([]);
    expect(await again.getByIds([corpus[0].id, corpus[1].id])).toEqual([undefined, expect.objectContaining({ pageContent: corpus[1].text, metadata: metaOf(corpus[1]) })]);
    await again.addDocuments([new Document({ pageContent: corpus[0].text, metadata: { back: true }, id: corpus[0].id })]);
    const picked = await again.maxMarginalRelevanceSearch(queries[1].text, { k: 3, fetchK: 15 }, undefined);
    expect(picked).toHaveLength(3);

    const view = await HorosvecStore.open(dir, new SampleEmbeddings(), { readOnly: true });
    expect(view.collection!.size).toBe(size + 1);
    expect((await view.getByIds([corpus[0].id]))[0]?.metadata).toEqual({ back: true });
    await expectCode(view.addDocuments([new Document({ pageContent: corpus[2].text, metadata: {} })]), 'HV_READ_ONLY');
    // a durable store saves a snapshot that loads in memory, on either backend
    const snap = freshDir();
    await again.save(snap);
    const mem = await HorosvecStore.load(snap, new SampleEmbeddings(), { Collection: wasm.Collection as unknown as typeof native.Collection });
    expect(mem.collection!.size).toBe(size + 1);
    await view.close();
    await again.close();
    await expectCode(HorosvecStore.open(dir, new SampleEmbeddings(), { metric: 'l2' }), 'HV_INVALID_ARGUMENT');
  });

  it('on the wasm backend open is a coded HV_UNSUPPORTED error', () => {
    const code = `import { HorosvecStore } from 'horosvec/langchain';
try { await HorosvecStore.open(${JSON.stringify(freshDir())}, {}, { dim: 4 }); console.log('opened'); }
catch (e) { console.log(e.code, e.message); }`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
      cwd: root, env: { ...process.env, HOROSVEC_FORCE_WASM: '1' }, encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^HV_UNSUPPORTED HV_UNSUPPORTED: HorosvecStore: open needs the native backend/);
  });
});

describe('examples/langchain.mjs', () => {
  it('ingests the sample with fromTexts and retrieves FOLDOC entries through asRetriever', () => {
    const r = spawnSync(process.execPath, [join(root, 'examples', 'langchain.mjs'), '2'], { cwd: root, encoding: 'utf8', env: { ...process.env, HOROSVEC_FORCE_WASM: '' } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    expect(lines[0]).toBe('ingested 3000 texts (dim 384, cosine)');
    const queriesShown = lines.filter((l) => l.startsWith('query: '));
    expect(queriesShown).toHaveLength(2);
    const hits = lines.filter((l) => /^ {2}\[/.test(l));
    expect(hits).toHaveLength(2 * 6);
    for (const h of hits) expect(h).toMatch(/^ {2}\[foldoc \d+\] \S/);
    expect(lines.filter((l) => l === '  mmr:')).toHaveLength(2);
  });
});
