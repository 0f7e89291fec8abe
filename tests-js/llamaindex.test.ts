// horosvec/llamaindex: HorosvecVectorStore through LlamaIndex.TS's real classes (@llamaindex/core:
// TextNode, Document, BaseEmbedding, VectorStoreQuery, MetadataFilters, VectorMemoryBlock), on
// the shipped sample's real texts and embeddings, on both backends (in memory) and durably
// (native). Every filter operator is checked against a JS evaluation of the documented
// semantics on the same nodes; results against exact brute force.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseEmbedding } from '@llamaindex/core/embeddings';
import { Document, NodeRelationship, TextNode, type BaseNode, type Metadata } from '@llamaindex/core/schema';
import { BaseVectorStore, VectorStoreQueryMode, type MetadataFilter, type MetadataFilters, type VectorStoreQuery } from '@llamaindex/core/vector-store';
import { VectorMemoryBlock } from '@llamaindex/core/memory';
import { HorosvecVectorStore, toHorosvecFilter, type HorosvecQueryParams } from 'horosvec/llamaindex';
import * as native from 'horosvec';
import * as wasm from 'horosvec/wasm';
import { expectCode } from './helpers/backends.js';

const root = fileURLToPath(new URL('..', import.meta.url));

interface SampleDoc { id: string; text: string; source: string; rank: number; vector: Float32Array }
interface Sample { docs: SampleDoc[]; queries: { text: string; vector: Float32Array }[]; embed(text: string): Float32Array }
let sample: Sample;

const N = 3000;
const K = 10;
const SOURCES = ['gcide', 'wordnet', 'fortune', 'foldoc', 'jargon'];

// An embedding model of the shipped sample (no model runs here). A message stored by
// VectorMemoryBlock (`<message role='user'>TEXT</message>`) embeds as its TEXT.
class SampleEmbedding extends BaseEmbedding {
  constructor() {
    super();
  }
  async getTextEmbedding(text: string): Promise<number[]> {
    const m = /^<message role='[^']*'>([\s\S]*)<\/message>$/.exec(text);
    return Array.from(sample.embed(m ? m[1]! : text));
  }
}

// Metadata derived from the sample, shaped to exercise every operator: arrays (some empty),
// strings ('' for some), null for some, a key absent from some, numbers.
function metaOf(d: SampleDoc, i: number): Metadata {
  const m: Metadata = { source: d.source, rank: d.rank, word: d.text.split(/[\s,:.(]/)[0] ?? '' };
  m.tags = d.rank % 7 === 0 ? [] : [d.source, d.rank % 2 === 0 ? 'even' : 'odd', ...(d.rank % 5 === 0 ? ['five'] : [])];
  if (i % 3 !== 0) m.note = i % 3 === 1 ? (d.rank % 4 === 0 ? '' : `note ${d.rank % 10}`) : null;
  return m;
}

let docsById: Map<string, { text: string; vector: Float32Array; meta: Metadata; doc: string }>;
let nodes: TextNode[];
const sourceDocs = new Map(SOURCES.map((s) => [s, new Document({ id_: `source:${s}`, text: s })]));

function makeNodes(): TextNode[] {
  docsById = new Map();
  return sample.docs.slice(0, N).map((d, i) => {
    const id = `n${i}`;
    const meta = metaOf(d, i);
    docsById.set(id, { text: d.text, vector: d.vector, meta, doc: `source:${d.source}` });
    return new TextNode({
      id_: id,
      text: d.text,
      metadata: meta,
      embedding: Array.from(d.vector),
      startCharIdx: 3,
      relationships: { [NodeRelationship.SOURCE]: sourceDocs.get(d.source)!.asRelatedNodeInfo() },
    });
  });
}

// ---- the JS reference of the documented filter semantics --------------------------------
const elems = (f: unknown): unknown[] => (Array.isArray(f) ? (f as unknown[]).flat(Infinity) : [f]);
const eq = (f: unknown, v: unknown) => elems(f).some((e) => e === v);
const cmp = (f: unknown, v: string | number, op: (a: any, b: any) => boolean) =>
  elems(f).some((e) => typeof e === typeof v && op(e, v));

function refOne(meta: Metadata, f: MetadataFilter | MetadataFilters): boolean {
  if ('filters' in f) return refFilters(meta, f);
  const has = Object.prototype.hasOwnProperty.call(meta, f.key);
  const x = meta[f.key];
  const v = f.value as any;
  switch (f.operator) {
    case 'is_empty':
      return !has || x === null || x === '' || (Array.isArray(x) && x.length === 0);
    case '==': case 'contains':
      return has && eq(x, v);
    case '!=':
      return has && !eq(x, v);
    case '>': return has && cmp(x, v, (a, b) => a > b);
    case '<': return has && cmp(x, v, (a, b) => a < b);
    case '>=': return has && cmp(x, v, (a, b) => a >= b);
    case '<=': return has && cmp(x, v, (a, b) => a <= b);
    case 'in': case 'any':
      return has && (v as unknown[]).some((y) => eq(x, y));
    case 'nin':
      return has && !(v as unknown[]).some((y) => eq(x, y));
    case 'all':
      return has && (v as unknown[]).every((y) => eq(x, y));
    case 'text_match':
      return has && ((typeof x === 'string' && x.includes(v)) || (Array.isArray(x) && x.includes(v)));
  }
  throw new Error(`no reference for ${f.operator}`);
}
function refFilters(meta: Metadata, fs: MetadataFilters): boolean {
  const items = fs.filters as (MetadataFilter | MetadataFilters)[];
  return (fs.condition ?? 'and') === 'and' ? items.every((f) => refOne(meta, f)) : items.some((f) => refOne(meta, f));
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { d += a[i]! * b[i]!; na += a[i]! * a[i]!; nb += b[i]! * b[i]!; }
  return d / Math.sqrt(na * nb);
}
/** Exact top k node ids by cosine among the nodes `keep` accepts. */
function bruteTopK(q: ArrayLike<number>, k: number, keep: (id: string) => boolean = () => true): string[] {
  const all: { id: string; s: number }[] = [];
  for (const [id, r] of docsById) if (keep(id)) all.push({ id, s: cosine(q, r.vector) });
  all.sort((a, b) => b.s - a.s);
  return all.slice(0, k).map((x) => x.id);
}
const overlap = (a: string[], b: string[]) => a.filter((x) => b.includes(x)).length;

const q = (i: number) => Array.from(sample.queries[i]!.vector);
const query = (o: Partial<VectorStoreQuery<HorosvecQueryParams>> & { queryEmbedding: number[] }): VectorStoreQuery<HorosvecQueryParams> =>
  ({ similarityTopK: K, mode: VectorStoreQueryMode.DEFAULT, ...o });

// Each operator at least once, with values that keep part of the nodes (checked below).
const OPERATOR_CASES: MetadataFilter[] = [
  { key: 'source', operator: '==', value: 'wordnet' },
  { key: 'rank', operator: '==', value: -1 },
  { key: 'source', operator: '!=', value: 'gcide' },
  { key: 'note', operator: '!=', value: '' },
  { key: 'rank', operator: '>', value: 90000 },
  { key: 'rank', operator: '<', value: 1000 },
  { key: 'rank', operator: '>=', value: 50000 },
  { key: 'rank', operator: '<=', value: 20000 },
  { key: 'word', operator: '>', value: 'T' },
  { key: 'source', operator: 'in', value: ['fortune', 'jargon'] },
  { key: 'source', operator: 'nin', value: ['gcide', 'wordnet'] },
  { key: 'note', operator: 'nin', value: ['note 1', 'note 2'] },
  { key: 'tags', operator: 'any', value: ['five', 'jargon'] },
  { key: 'tags', operator: 'all', value: ['even', 'five'] },
  { key: 'tags', operator: 'contains', value: 'odd' },
  { key: 'tags', operator: 'in', value: ['five'] },
  { key: 'word', operator: 'text_match', value: 'ing' },
  { key: 'note', operator: 'text_match', value: 'note 3' },
  { key: 'tags', operator: 'text_match', value: 'foldoc' },
  { key: 'note', operator: 'is_empty' },
  { key: 'tags', operator: 'is_empty' },
  { key: 'missing', operator: 'is_empty' },
  { key: 'missing', operator: '!=', value: 1 },
];
const COMBINED_CASES: MetadataFilters[] = [
  { filters: [{ key: 'source', operator: '==', value: 'wordnet' }, { key: 'rank', operator: '<', value: 30000 }], condition: 'and' },
  { filters: [{ key: 'source', operator: '==', value: 'fortune' }, { key: 'rank', operator: '<', value: 2000 }], condition: 'or' },
  { filters: [{ key: 'tags', operator: 'is_empty' }, { key: 'note', operator: 'is_empty' }], condition: 'or' },
  { filters: [{ key: 'note', operator: '!=', value: 'note 5' }, { key: 'tags', operator: 'all', value: ['odd'] }] },
  {
    filters: [
      { key: 'rank', operator: '>=', value: 10000 },
      { filters: [{ key: 'source', operator: '==', value: 'jargon' }, { key: 'tags', operator: 'contains', value: 'five' }], condition: 'or' } as unknown as MetadataFilter,
    ],
    condition: 'and',
  },
];

beforeAll(async () => {
  sample = ((await import('../examples/lib/sample.mjs' as string)) as { loadSample(): Sample }).loadSample();
  nodes = makeNodes();
});

const tmpDirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'horosvec-li-'));
  tmpDirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

const BACKENDS: [string, () => HorosvecVectorStore][] = [
  ['native (default in-memory collection)', () => new HorosvecVectorStore({ embedModel: new SampleEmbedding() })],
  ['wasm (a Collection of horosvec/wasm)', () => new HorosvecVectorStore({ collection: wasm.Collection.create({ dim: 384, metric: 'cosine' }), embedModel: new SampleEmbedding() })],
];

describe.each(BACKENDS)('HorosvecVectorStore on %s', (_name, make) => {
  let store: HorosvecVectorStore;
  beforeAll(async () => {
    store = make();
    const ids = await store.add(nodes);
    expect(ids).toEqual(nodes.map((n) => n.id_));
  });
  afterAll(async () => {
    await store.close();
  });

  it('implements BaseVectorStore: storesText, client(), embedModel', () => {
    // (typed: the class is a BaseVectorStore of its client and custom params)
    const asBase: BaseVectorStore<native.Collection | undefined, HorosvecQueryParams> = store;
    expect(asBase).toBeInstanceOf(BaseVectorStore);
    expect(store.storesText).toBe(true);
    expect(store.client()!.size).toBe(N);
    expect(store.client()!.metric).toBe('cosine');
    expect(store.embedModel).toBeInstanceOf(SampleEmbedding);
    expect(store.dim).toBe(384);
  });

  it('query returns rebuilt nodes, cosine similarities and ids equal to exact brute force', async () => {
    let found = 0;
    for (let i = 0; i < 20; i++) {
      const res = await store.query(query({ queryEmbedding: q(i) }));
      expect(res.ids).toHaveLength(K);
      found += overlap(res.ids, bruteTopK(q(i), K));
      res.nodes!.forEach((node, j) => {
        const ref = docsById.get(res.ids[j]!)!;
        expect(node).toBeInstanceOf(TextNode);
        expect(node.id_).toBe(res.ids[j]);
        expect((node as TextNode).text).toBe(ref.text);
        expect(node.metadata).toEqual(ref.meta);
        expect(node.sourceNode?.nodeId).toBe(ref.doc);
        expect((node as TextNode).startCharIdx).toBe(3);
        expect(res.similarities[j]).toBeCloseTo(cosine(q(i), ref.vector), 4);
        if (j > 0) expect(res.similarities[j]).toBeLessThanOrEqual(res.similarities[j - 1]! + 1e-6);
      });
    }
    expect(found / (20 * K)).toBeGreaterThanOrEqual(0.99);
  });

  it('every filter operator keeps exactly the nodes the reference keeps, and returns their exact top k', async () => {
    for (const [c, f] of [...OPERATOR_CASES.map((x) => ({ filters: [x] }) as MetadataFilters), ...COMBINED_CASES].entries()) {
      const keep = (id: string) => refFilters(docsById.get(id)!.meta, f);
      const expected = [...docsById.keys()].filter(keep).length;
      const label = JSON.stringify(f);
      expect(await store.client()!.count(toHorosvecFilter(f)), label).toBe(expected);
      const qi = c % 50;
      const res = await store.query(query({ queryEmbedding: q(qi), filters: f }));
      expect(res.ids.length, label).toBe(Math.min(K, expected));
      for (const id of res.ids) expect(keep(id), `${label} returned ${id}`).toBe(true);
      expect(overlap(res.ids, bruteTopK(q(qi), K, keep)), label).toBeGreaterThanOrEqual(Math.min(K, expected) - 1);
    }
  });

  it('the operator cases are not trivial (each keeps some nodes and drops some), except the two chosen to', () => {
    for (const f of OPERATOR_CASES) {
      const kept = [...docsById.values()].filter((r) => refOne(r.meta, f)).length;
      if (f.key === 'missing' || f.value === -1) expect(kept === 0 || kept === N, JSON.stringify(f)).toBe(true);
      else expect(kept > 0 && kept < N, `${JSON.stringify(f)} keeps ${kept}`).toBe(true);
    }
  });

  it('an empty "and" keeps every node, an empty "or" none (as SimpleVectorStore)', async () => {
    expect((await store.query(query({ queryEmbedding: q(0), filters: { filters: [] } }))).ids).toHaveLength(K);
    expect((await store.query(query({ queryEmbedding: q(0), filters: { filters: [], condition: 'or' } }))).ids).toHaveLength(0);
  });

  it('docIds restricts by ref doc id (with filters: both), customParams.nodeIds by node id', async () => {
    const res = await store.query(query({ queryEmbedding: q(1), docIds: ['source:wordnet', 'source:jargon'] }));
    expect(res.ids).toEqual(bruteTopK(q(1), K, (id) => ['source:wordnet', 'source:jargon'].includes(docsById.get(id)!.doc)));
    const f: MetadataFilters = { filters: [{ key: 'rank', operator: '<', value: 50000 }] };
    const both = await store.query(query({ queryEmbedding: q(1), docIds: ['source:wordnet'], filters: f }));
    expect(both.ids.length).toBe(K);
    for (const id of both.ids) expect(docsById.get(id)!.doc === 'source:wordnet' && (docsById.get(id)!.meta.rank as number) < 50000).toBe(true);
    const allow = ['n5', 'n17', 'n99', 'n1234'];
    const byNode = await store.query(query({ queryEmbedding: q(1), customParams: { nodeIds: allow } }));
    expect([...byNode.ids].sort()).toEqual([...allow].sort());
    expect((await store.query(query({ queryEmbedding: q(1), docIds: [] }))).ids).toEqual([]);
  });

  it('MMR mode (mmrThreshold as λ) differs from the default top k and is more diverse', async () => {
    let differs = 0;
    for (let i = 0; i < 10; i++) {
      const plain = await store.query(query({ queryEmbedding: q(i), similarityTopK: 5 }));
      const mmr = await store.query(query({ queryEmbedding: q(i), similarityTopK: 5, mode: VectorStoreQueryMode.MMR, mmrThreshold: 0.3 }));
      expect(mmr.ids).toHaveLength(5);
      expect(new Set(mmr.ids).size).toBe(5);
      expect(mmr.ids[0]).toBe(plain.ids[0]); // the first pick is the most relevant
      if (mmr.ids.some((id) => !plain.ids.includes(id))) differs++;
      const spread = (ids: string[]) => {
        let s = 0;
        for (const a of ids) for (const b of ids) if (a < b) s += cosine(docsById.get(a)!.vector, docsById.get(b)!.vector);
        return s;
      };
      expect(spread(mmr.ids)).toBeLessThanOrEqual(spread(plain.ids) + 1e-9);
      mmr.ids.forEach((id, j) => expect(mmr.similarities[j]).toBeCloseTo(cosine(q(i), docsById.get(id)!.vector), 4));
      // λ = 1 is plain relevance
      const pure = await store.query(query({ queryEmbedding: q(i), similarityTopK: 5, mode: VectorStoreQueryMode.MMR, mmrThreshold: 1 }));
      expect(pure.ids).toEqual(plain.ids);
    }
    expect(differs).toBeGreaterThanOrEqual(8);
    // with a filter: MMR's picks obey it
    const f: MetadataFilters = { filters: [{ key: 'source', operator: '==', value: 'gcide' }] };
    const res = await store.query(query({ queryEmbedding: q(3), mode: VectorStoreQueryMode.MMR, filters: f }));
    for (const n of res.nodes!) expect(n.metadata.source).toBe('gcide');
  });

  it('queryStr alone is embedded with embedModel', async () => {
    const text = sample.queries[7]!.text;
    const a = await store.query(query({ queryEmbedding: undefined as unknown as number[], queryStr: text }));
    expect(a.ids).toEqual((await store.query(query({ queryEmbedding: q(7) }))).ids);
  });

  it('getNodes gives the stored nodes back with their embeddings', async () => {
    const [n] = await store.getNodes(['n42', 'no such']);
    expect(n!.id_).toBe('n42');
    expect(n!.embedding!.length).toBe(384);
    expect(n!.embedding![0]).toBeCloseTo(docsById.get('n42')!.vector[0]!, 6);
  });

  it('bad inputs are coded errors and write nothing', async () => {
    const size = store.client()!.size;
    const e = (text: string, embedding?: number[]) => new TextNode({ id_: `bad-${text}`, text, embedding });
    await expectCode(store.add([e('ok', q(0)), e('none')]), 'HV_INVALID_ARGUMENT');
    await expectCode(store.add([e('ok', q(0)), e('short', [1, 2, 3])]), 'HV_DIM_MISMATCH');
    await expectCode(store.add([e('nan', [...q(0).slice(1), NaN])]), 'HV_INVALID_VECTOR');
    // the message names the bad value as it is (JSON would print NaN and Infinity as null)
    await expect(store.add([e('nan', [NaN, ...q(0).slice(1)])])).rejects.toThrow('nodes[0].embedding[0] is NaN');
    await expect(store.query(query({ queryEmbedding: [...q(0).slice(1), Infinity] }))).rejects.toThrow('queryEmbedding[383] is Infinity');
    await expectCode(store.add([e('ok', q(0)), { id_: 'x' } as unknown as BaseNode]), 'HV_INVALID_ARGUMENT');
    await expectCode(store.add('nodes' as unknown as BaseNode[]), 'HV_INVALID_ARGUMENT');
    const fn = new TextNode({ id_: 'fn', text: 'x', embedding: q(0), metadata: { f: () => 1 } });
    await expectCode(store.add([e('ok', q(0)), fn]), 'HV_INVALID_ARGUMENT');
    expect(store.client()!.size).toBe(size);
    expect(store.client()!.get('bad-ok')).toBeUndefined();

    const bad = async (o: Partial<VectorStoreQuery<HorosvecQueryParams>>, code = 'HV_INVALID_ARGUMENT') =>
      expectCode(store.query({ ...query({ queryEmbedding: q(0) }), ...o } as VectorStoreQuery<HorosvecQueryParams>), code);
    await bad({ filters: { filters: [{ key: 'rank', operator: 'like' as '==', value: 1 }] } });
    await bad({ filters: { filters: [{ key: 'rank', operator: '==', value: 1 }], condition: 'xor' as 'and' } });
    await bad({ filters: { filters: [{ key: 'rank', operator: '==', value: [1] }] } });
    await bad({ filters: { filters: [{ key: 'rank', operator: 'in', value: 1 }] } });
    await bad({ filters: { filters: [{ key: 'rank', operator: 'text_match', value: 1 }] } });
    await bad({ filters: { filters: [{ key: '', operator: '==', value: 1 }] } });
    await bad({ filters: { filters: [{ key: '$or', operator: '==', value: 1 }] } });
    await bad({ filters: 'rank' as unknown as MetadataFilters });
    await bad({ similarityTopK: 0 });
    await bad({ similarityTopK: 2.5 });
    await bad({ mode: VectorStoreQueryMode.SVM }, 'HV_UNSUPPORTED');
    await bad({ mode: VectorStoreQueryMode.HYBRID }, 'HV_UNSUPPORTED');
    await bad({ mode: VectorStoreQueryMode.MMR, mmrThreshold: 2 });
    await bad({ docIds: 'source:wordnet' as unknown as string[] });
    await bad({ queryEmbedding: [1, 2] }, 'HV_DIM_MISMATCH');
    await bad({ customParams: { ef: -1 } });
    await expectCode(store.delete(''), 'HV_INVALID_ARGUMENT');
    await expectCode(store.delete(7 as unknown as string), 'HV_INVALID_ARGUMENT');
    expect(store.client()!.size).toBe(size);
  });

  it('re-adding a node replaces it (upsert by node id); delete(refDocId) removes that document\'s nodes only', async () => {
    const fortune = nodes.filter((n) => n.sourceNode!.nodeId === 'source:fortune').length;
    expect(fortune).toBeGreaterThan(10);
    const n0 = nodes[0]!;
    const replaced = new TextNode({ id_: n0.id_, text: n0.text, metadata: { ...n0.metadata, edited: true }, embedding: n0.embedding, relationships: n0.relationships });
    await store.add([replaced]);
    expect(store.client()!.size).toBe(N);
    expect((await store.getNodes([n0.id_]))[0]!.metadata.edited).toBe(true);

    await store.delete('source:fortune');
    expect(store.client()!.size).toBe(N - fortune);
    const f: MetadataFilters = { filters: [{ key: 'source', operator: '==', value: 'fortune' }] };
    expect((await store.query(query({ queryEmbedding: q(0), filters: f }))).ids).toEqual([]);
    await store.delete('source:none'); // unknown: nothing
    expect(store.client()!.size).toBe(N - fortune);
  });
});

describe('recall floor with an approximate index (both backends)', () => {
  it.each([
    ['native', native.Collection],
    ['wasm', wasm.Collection as unknown as typeof native.Collection],
  ])('%s: after buildIndex, recall@10 ≥ 0.9 against exact brute force (filtered too)', async (_n, C) => {
    const store = new HorosvecVectorStore({ collection: C.create({ dim: 384, metric: 'cosine' }) });
    await store.add(nodes);
    await store.client()!.buildIndex({ seed: 7 });
    let found = 0, foundF = 0, totalF = 0;
    const f: MetadataFilters = { filters: [{ key: 'rank', operator: '<', value: 30000 }] };
    const keep = (id: string) => refFilters(docsById.get(id)!.meta, f);
    for (let i = 0; i < 50; i++) {
      found += overlap((await store.query(query({ queryEmbedding: q(i) }))).ids, bruteTopK(q(i), K));
      const ref = bruteTopK(q(i), K, keep);
      foundF += overlap((await store.query(query({ queryEmbedding: q(i), filters: f }))).ids, ref);
      totalF += ref.length;
    }
    expect(found / (50 * K)).toBeGreaterThanOrEqual(0.9);
    expect(foundF / totalF).toBeGreaterThanOrEqual(0.9);
    await store.client()!.close();
  });
});

describe('persistence', () => {
  it.each([
    ['native', native.Collection],
    ['wasm', wasm.Collection as unknown as typeof native.Collection],
  ])('%s: persist → fromPersistDir gives the same answers; the loaded store persists again on add/delete', async (_n, C) => {
    const dir = tmp();
    const store = new HorosvecVectorStore({ collection: C.create({ dim: 384, metric: 'cosine' }) });
    await store.add(nodes.slice(0, 1000));
    await store.persist(join(dir, 'vector_store.json'));
    const manifest = JSON.parse(readFileSync(join(dir, 'vector_store.json'), 'utf8'));
    expect(manifest).toMatchObject({ format: 'horosvec-llamaindex', version: 1, dim: 384, metric: 'cosine' });
    const f: MetadataFilters = { filters: [{ key: 'tags', operator: 'contains', value: 'even' }] };
    const before = await store.query(query({ queryEmbedding: q(2), filters: f }));

    const loaded = await HorosvecVectorStore.fromPersistDir(dir, new SampleEmbedding(), { Collection: C });
    expect(loaded.client()!.size).toBe(1000);
    const after = await loaded.query(query({ queryEmbedding: q(2), filters: f }));
    expect(after.ids).toEqual(before.ids);
    expect(after.nodes!.map((n) => (n as TextNode).text)).toEqual(before.nodes!.map((n) => (n as TextNode).text));

    // concurrent writes: their persists run one at a time
    await Promise.all([loaded.add(nodes.slice(1000, 1050)), loaded.add(nodes.slice(1050, 1100))]);
    await loaded.delete('source:gcide');
    const expected = nodes.slice(0, 1100).filter((n) => n.sourceNode!.nodeId !== 'source:gcide').length;
    const again = await HorosvecVectorStore.fromPersistPath(join(dir, 'vector_store.json'), undefined, { Collection: C });
    expect(again.client()!.size).toBe(expected);
    // one snapshot file left beside the JSON (the previous ones are removed, no temporaries)
    expect(readdirSync(dir).sort()).toEqual(['vector_store.json', JSON.parse(readFileSync(join(dir, 'vector_store.json'), 'utf8')).snapshot].sort());
    await store.close();
    await loaded.close();
    await again.close();
  });

  it('a missing path gives an empty store; an unreadable or foreign file is a coded error and is not overwritten', async () => {
    const dir = tmp();
    const empty = await HorosvecVectorStore.fromPersistDir(join(dir, 'none'));
    expect(empty.client()).toBeUndefined();
    expect((await empty.query(query({ queryEmbedding: q(0) }))).ids).toEqual([]);
    await empty.add(nodes.slice(0, 3)); // persists (dim from the first node)
    expect((await HorosvecVectorStore.fromPersistDir(join(dir, 'none'))).client()!.size).toBe(3);

    const simple = JSON.stringify({ embeddingDict: { a: [1, 2] }, textIdToRefDocId: {}, metadataDict: {} });
    writeFileSync(join(dir, 'vector_store.json'), simple);
    await expectCode(HorosvecVectorStore.fromPersistDir(dir), 'HV_CORRUPT');
    expect(readFileSync(join(dir, 'vector_store.json'), 'utf8')).toBe(simple);
    await expectCode(empty.persist(join(dir, 'vector_store.json')), 'HV_INVALID_ARGUMENT'); // persist does not overwrite it either
    expect(readFileSync(join(dir, 'vector_store.json'), 'utf8')).toBe(simple);
    writeFileSync(join(dir, 'vector_store.json'), '{not json');
    await expectCode(HorosvecVectorStore.fromPersistDir(dir), 'HV_CORRUPT');
    writeFileSync(join(dir, 'vector_store.json'), JSON.stringify({ format: 'horosvec-llamaindex', version: 1, dim: 384, metric: 'cosine', snapshot: 'gone.hvsnap' }));
    await expectCode(HorosvecVectorStore.fromPersistDir(dir), 'HV_CORRUPT');
    writeFileSync(join(dir, 'vector_store.json'), JSON.stringify({ format: 'horosvec-llamaindex', version: 99, snapshot: null }));
    await expectCode(HorosvecVectorStore.fromPersistDir(dir), 'HV_VERSION');
  });

  it('durable open → add → close → reopen (native): nodes, filters and delete(refDocId) survive without persist', async () => {
    const dir = join(tmp(), 'db');
    const store = await HorosvecVectorStore.open(dir, { dim: 384, embedModel: new SampleEmbedding() });
    await store.add(nodes.slice(0, 2500));
    const f: MetadataFilters = { filters: [{ key: 'source', operator: 'in', value: ['wordnet', 'jargon'] }, { key: 'note', operator: 'is_empty' }] };
    const before = await store.query(query({ queryEmbedding: q(4), filters: f }));
    expect(before.ids.length).toBe(K);
    await store.delete('source:fortune');
    const left = nodes.slice(0, 2500).filter((n) => n.sourceNode!.nodeId !== 'source:fortune').length;
    await store.close();
    await expectCode(store.query(query({ queryEmbedding: q(4) })), 'HV_CLOSED');

    const reopened = await HorosvecVectorStore.open(dir, { embedModel: new SampleEmbedding() });
    expect(reopened.client()!.size).toBe(left);
    expect(reopened.metric).toBe('cosine');
    const after = await reopened.query(query({ queryEmbedding: q(4), filters: f }));
    // recall floor over 20 queries (the reopened writer may search through its interim index)
    const keep = (id: string) =>
      refFilters(docsById.get(id)!.meta, f) && Number(id.slice(1)) < 2500 && docsById.get(id)!.doc !== 'source:fortune';
    let found = 0;
    for (let i = 0; i < 20; i++) found += overlap((await reopened.query(query({ queryEmbedding: q(i), filters: f }))).ids, bruteTopK(q(i), K, keep));
    expect(found / (20 * K)).toBeGreaterThanOrEqual(0.9);
    expect(after.nodes![0]).toBeInstanceOf(TextNode);
    expect(after.nodes![0]!.sourceNode!.nodeId).toMatch(/^source:/);
    // a second writer is refused; a read-only view reads and refuses writes
    await expectCode(HorosvecVectorStore.open(dir), 'HV_LOCKED');
    const view = await HorosvecVectorStore.open(dir, { readOnly: true });
    expect(view.client()!.size).toBe(left);
    await expectCode(view.delete('source:gcide'), 'HV_READ_ONLY');
    await view.close();
    await reopened.close();
  });

  it('open: bad options are coded errors; under wasm it is HV_UNSUPPORTED', async () => {
    await expectCode(HorosvecVectorStore.open(''), 'HV_INVALID_ARGUMENT');
    await expectCode(HorosvecVectorStore.open(join(tmp(), 'x'), { dim: 4, metric: 'hamming' as 'l2' }), 'HV_INVALID_ARGUMENT');
    await expectCode(HorosvecVectorStore.open(join(tmp(), 'x')), 'HV_INVALID_ARGUMENT'); // no dim to create
    await expectCode(HorosvecVectorStore.open(join(tmp(), 'x'), { dim: 4, Collection: wasm.Collection as unknown as typeof native.Collection }), 'HV_UNSUPPORTED');
  });
});

describe('constructor', () => {
  it('checks its options', () => {
    const c = native.Collection.create({ dim: 4, metric: 'l2' });
    expect(() => new HorosvecVectorStore({ dim: 0 })).toThrow(expect.objectContaining({ code: 'HV_INVALID_ARGUMENT' }));
    expect(() => new HorosvecVectorStore({ metric: 'dot' as 'ip' })).toThrow(expect.objectContaining({ code: 'HV_INVALID_ARGUMENT' }));
    expect(() => new HorosvecVectorStore({ collection: c, dim: 8 })).toThrow(expect.objectContaining({ code: 'HV_INVALID_ARGUMENT' }));
    expect(() => new HorosvecVectorStore({ collection: c, metric: 'cosine' })).toThrow(expect.objectContaining({ code: 'HV_INVALID_ARGUMENT' }));
    expect(() => new HorosvecVectorStore({ collection: {} as native.Collection })).toThrow(expect.objectContaining({ code: 'HV_INVALID_ARGUMENT' }));
    expect(() => new HorosvecVectorStore({ dims: 4 } as object)).toThrow(expect.objectContaining({ code: 'HV_INVALID_ARGUMENT' }));
    const s = new HorosvecVectorStore({ collection: c });
    expect(s.metric).toBe('l2');
    // no model given and none in Settings: LlamaIndex's own error, when the model is used
    expect(() => s.embedModel).toThrow(/Settings.embedModel/);
  });

  it('similarity per metric: l2 1/(1+d), ip −d (higher is better)', async () => {
    const v = (i: number) => [1, i, 0, 0];
    for (const metric of ['l2', 'ip', 'l1'] as const) {
      const s = new HorosvecVectorStore({ metric });
      await s.add([1, 2, 3].map((i) => new TextNode({ id_: `m${i}`, text: `t${i}`, embedding: v(i) })));
      const res = await s.query(query({ queryEmbedding: [1, 1, 0, 0], similarityTopK: 3 }));
      const d = (x: number[]) =>
        metric === 'l2' ? x.reduce((a, xi, i) => a + (xi - [1, 1, 0, 0][i]!) ** 2, 0) : metric === 'l1' ? x.reduce((a, xi, i) => a + Math.abs(xi - [1, 1, 0, 0][i]!), 0) : -x.reduce((a, xi, i) => a + xi * [1, 1, 0, 0][i]!, 0);
      res.ids.forEach((id, j) => {
        const dist = d(v(Number(id.slice(1))));
        expect(res.similarities[j]).toBeCloseTo(metric === 'ip' ? -dist : 1 / (1 + dist), 5);
      });
      await s.close();
    }
  });
});

describe('with LlamaIndex classes that consume a vector store', () => {
  it('VectorMemoryBlock (@llamaindex/core/memory) stores messages and retrieves the relevant one, per session', async () => {
    // VectorStoreIndex lives in the `llamaindex` package (not installed); VectorMemoryBlock is
    // @llamaindex/core's own consumer of a BaseVectorStore (it needs storesText).
    const store = new HorosvecVectorStore({ embedModel: new SampleEmbedding() });
    const block = new VectorMemoryBlock({ vectorStore: store, priority: 1, retrievalContextWindow: 1, queryOptions: { similarityTopK: 1 } });
    const other = new VectorMemoryBlock({ vectorStore: store, priority: 1, retrievalContextWindow: 1, queryOptions: { similarityTopK: 1 } });
    const texts = sample.docs.slice(0, 50).map((d) => d.text);
    // (put stores its messages as one node: one message per put gives one node each)
    for (const [i, t] of texts.entries()) await block.put([{ id: `m${i}`, role: 'user', content: t }]);
    expect(store.client()!.size).toBe(50);
    await other.put([{ id: 'o', role: 'user', content: sample.docs[60]!.text }]);
    const qText = sample.queries[0]!.text;
    const best = texts.map((t) => ({ t, s: cosine(sample.embed(t), sample.embed(qText)) })).sort((a, b) => b.s - a.s)[0]!.t;
    const [msg] = await block.get([{ id: 'q', role: 'user', content: qText }]);
    expect(msg!.role).toBe('memory');
    expect(String(msg!.content)).toContain(best);
    // the other session's block sees only its own message (a '==' filter on session_id)
    const [msg2] = await other.get([{ id: 'q', role: 'user', content: qText }]);
    expect(String(msg2!.content)).toContain(sample.docs[60]!.text);
  });
});

describe('examples/llamaindex.mjs', () => {
  it('runs: ingests sample texts as TextNodes, queries with MetadataFilters, prints', () => {
    const r = spawnSync(process.execPath, [join(root, 'examples', 'llamaindex.mjs'), '2000'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('query: '))).toHaveLength(3);
    // each "where" header is followed by three hits `similarity  [source rank r]  text` that obey it
    let where = '';
    let hits = 0;
    for (const l of lines.slice(0, -1)) {
      if (l.startsWith('query: ')) continue;
      if (l.startsWith('  where ')) {
        where = l.trim();
        continue;
      }
      const m = /^ {4}(-?\d\.\d{3}) {2}\[(\w+) rank (\d+)\] {2}\S/.exec(l);
      expect(m, l).not.toBeNull();
      hits++;
      if (where === 'where source == wordnet:') expect(m![2]).toBe('wordnet');
      else if (where === 'where rank < 1000:') expect(Number(m![3])).toBeLessThan(1000);
      else throw new Error(`unexpected header ${where}`);
    }
    expect(hits).toBe(18);
    const summary = JSON.parse(lines.at(-1)!);
    expect(summary.nodes).toBe(2000);
    expect(summary.afterDeletingFortune).toBeLessThan(2000);
    expect(summary.hits).toBe(18);
  });
});

describe('a failed first add', () => {
  it('leaves the store without a dimension: the next add may set another', async () => {
    const s = new HorosvecVectorStore();
    // a metadata value the core refuses (a bigint) fails the whole call
    const n = new TextNode({ id_: 'a', text: 'a', embedding: [1, 2, 3], metadata: { big: 1n } });
    await expectCode(s.add([n]), 'HV_INVALID_ARGUMENT');
    expect(s.client()).toBeUndefined();
    expect(s.dim).toBeUndefined();
    await s.add([new TextNode({ id_: 'b', text: 'b', embedding: [1, 2] })]);
    expect(s.dim).toBe(2);
  });
});
