// horosvec/langchain: a LangChain.js vector store (`SaveableVectorStore` of @langchain/core) over
// one horosvec `Collection`. Each LangChain document is one record: its id, its vector, and as
// metadata the envelope of common.js, `{ text: pageContent, meta: metadata }`, so documents live
// in the collection itself (durable with `open`, in the snapshot with `save`): no side file.

import { Document } from '@langchain/core/documents';
import { SaveableVectorStore } from '@langchain/core/vectorstores';
import { backend } from 'horosvec';
import { Collection, META, argError, envelope, ioError, mmr, similarity, underMeta } from './common.js';
import { writeAtomic } from '../lib/files.js';
import { hvError } from '../lib/errors.js';

const NAME = 'HorosvecStore';
const METRICS = ['cosine', 'l2', 'ip', 'l1'];
const ARGS_FILE = 'horosvec-langchain.json';
const SNAPSHOT_FILE = 'collection.hvsnap';
const FORMAT = 'horosvec-langchain';
const FORMAT_VERSION = 1;
const PAGE = 10_000; // list page size of the scans (the core's maximum)

const bad = (message) => argError(NAME, message);
const coded = (code, message, cause) => hvError(code, `${NAME}: ${message}`, cause);
const unsupported = (message) => coded('HV_UNSUPPORTED', message);

function checkK(k, what = 'k') {
  if (!Number.isInteger(k) || k <= 0) throw bad(`${what} must be a positive integer, got ${typeof k === 'number' ? k : typeof k}`);
}

function checkMetric(metric) {
  if (!METRICS.includes(metric)) throw bad(`metric must be one of ${METRICS.join(', ')}, got ${JSON.stringify(metric)}`);
}

// 'function' (a predicate over the Document), 'object' (a horosvec filter over the metadata) or
// undefined (no filter); anything else is refused.
function filterKind(filter) {
  if (filter === undefined || filter === null) return undefined;
  if (typeof filter === 'function') return 'function';
  if (typeof filter === 'object' && !Array.isArray(filter)) return 'object';
  throw bad(`filter must be a horosvec filter object over the document metadata or a (doc) => boolean function, got ${Array.isArray(filter) ? 'an array' : typeof filter}`);
}

// The record metadata (envelopes) of LangChain documents, checked.
function records(documents) {
  if (!Array.isArray(documents)) throw bad('documents must be an array of Documents');
  return documents.map((d, i) => {
    if (d === null || typeof d !== 'object' || typeof d.pageContent !== 'string') throw bad(`documents[${i}] must be a Document with a string pageContent`);
    const meta = d.metadata ?? {};
    if (typeof meta !== 'object' || Array.isArray(meta)) throw bad(`documents[${i}].metadata must be an object`);
    return envelope(d.pageContent, meta);
  });
}

function toDocument(id, metadata) {
  const m = metadata && typeof metadata === 'object' ? metadata : {};
  return new Document({ pageContent: typeof m.text === 'string' ? m.text : '', metadata: m[META] ?? {}, id: String(id) });
}

// The ids of every document of collection `c` that predicate `filter` accepts, in list order
// (one pass over the collection in pages).
async function matchingIds(c, filter) {
  const ids = [];
  let cursor = null;
  do {
    const page = await c.list({ limit: PAGE, cursor });
    for (const r of page.records) if (filter(toDocument(r.id, r.metadata))) ids.push(r.id);
    cursor = page.cursor;
  } while (cursor !== null);
  return ids;
}

async function fs() {
  try {
    return { fsp: await import('node:fs/promises'), path: await import('node:path') };
  } catch {
    throw unsupported('save, load and open need a file system (Node.js)');
  }
}

export class HorosvecStore extends SaveableVectorStore {
  /** The horosvec `Collection` holding the documents (`undefined` until the first add when no `dim` was given). */
  collection;
  /** The metric of the collection: `'cosine'` (default), `'l2'`, `'ip'` or `'l1'`. */
  metric;
  /** The vector dimension (`undefined` until known). */
  dim;
  // writes in flight, so a lazily created collection is dropped only when no other write uses it
  #writes = 0;
  // the collection this store created lazily and that has received nothing yet
  #fresh;

  _vectorstoreType() {
    return 'horosvec';
  }

  /**
   * @param {import('@langchain/core/embeddings').EmbeddingsInterface} embeddings
   * @param {{ dim?: number, metric?: 'cosine' | 'l2' | 'ip' | 'l1', collection?: Collection }} [args]
   */
  constructor(embeddings, args = {}) {
    if (args === null || typeof args !== 'object') throw bad('args must be an object such as { metric: "cosine" }');
    const { dim, metric, collection } = args;
    super(embeddings, { dim, metric });
    if (collection !== undefined) {
      if (collection === null || typeof collection.search !== 'function' || typeof collection.upsert !== 'function') {
        throw bad('collection must be a horosvec Collection (from Collection.create, Collection.open or Collection.fromBytes)');
      }
      if (metric !== undefined && metric !== collection.metric) throw bad(`metric ${JSON.stringify(metric)} differs from the collection's ${JSON.stringify(collection.metric)}`);
      if (dim !== undefined && dim !== collection.dim) throw bad(`dim ${dim} differs from the collection's ${collection.dim}`);
      this.collection = collection;
      this.metric = collection.metric;
      this.dim = collection.dim;
    } else {
      this.metric = metric ?? 'cosine';
      checkMetric(this.metric);
      if (dim !== undefined) {
        if (!Number.isInteger(dim) || dim <= 0) throw bad(`dim must be a positive integer, got ${dim}`);
        this.collection = Collection.create({ dim, metric: this.metric });
        this.dim = dim;
      }
    }
  }

  /**
   * Adds documents, embedding their `pageContent` with `this.embeddings`. See `addVectors`.
   * @returns the ids of the documents, in order
   */
  async addDocuments(documents, options = {}) {
    // every check before paying for the embeddings
    const metadata = records(documents);
    const ids = this.#ids(documents, options);
    if (documents.length === 0) return [];
    const vectors = await this.embeddings.embedDocuments(documents.map((d) => d.pageContent));
    if (!Array.isArray(vectors) || vectors.length !== documents.length) {
      throw bad(`the embeddings returned ${Array.isArray(vectors) ? vectors.length : typeof vectors} vectors for ${documents.length} documents`);
    }
    return this.#write(vectors, ids, metadata);
  }

  /**
   * Adds documents with their precomputed vectors. Each document's id is `options.ids[i]`, else
   * `documents[i].id`, else a new `crypto.randomUUID()`. A document whose id is already stored
   * replaces it (upsert, as LangChain's Chroma, Pinecone and Qdrant stores do). All or
   * nothing: on any error nothing is written.
   * @returns the ids of the documents, in order
   * @throws `HV_INVALID_ARGUMENT` (counts differ, a bad id or document), `HV_DIM_MISMATCH`,
   * `HV_INVALID_VECTOR`
   */
  async addVectors(vectors, documents, options = {}) {
    if (!Array.isArray(vectors) || !Array.isArray(documents)) throw bad('addVectors needs an array of vectors and an array of documents');
    if (vectors.length !== documents.length) throw bad(`${vectors.length} vectors for ${documents.length} documents`);
    const metadata = records(documents);
    const ids = this.#ids(documents, options);
    if (documents.length === 0) return [];
    return this.#write(vectors, ids, metadata);
  }

  async #write(vectors, ids, metadata) {
    for (let i = 0; i < vectors.length; i++) {
      const v = vectors[i];
      if (v === null || typeof v !== 'object' || typeof v.length !== 'number') throw bad(`vectors[${i}] must be an array of numbers`);
    }
    this.#writes++;
    let collection;
    try {
      collection = this.#writable(vectors[0].length);
      await collection.upsert(ids, vectors, metadata);
      if (this.#fresh === collection) this.#fresh = undefined;
    } catch (e) {
      // a collection made for this call and still empty goes, so the next add picks the dim again
      if (collection !== undefined && this.#fresh === collection && this.#writes === 1 && collection.size === 0) {
        this.collection = undefined;
        this.dim = undefined;
        this.#fresh = undefined;
      }
      throw e;
    } finally {
      this.#writes--;
    }
    return ids;
  }

  #ids(documents, options) {
    if (options === null || typeof options !== 'object') throw bad('options must be an object such as { ids }');
    const given = options.ids;
    if (given !== undefined && (!Array.isArray(given) || given.length !== documents.length)) {
      throw bad(`options.ids must be an array of one id per document (${documents.length})`);
    }
    return documents.map((d, i) => {
      const id = given?.[i] ?? d?.id ?? globalThis.crypto.randomUUID();
      if (typeof id !== 'string' || id === '') throw bad(`the id of document ${i} must be a non-empty string, got ${JSON.stringify(id)}`);
      return id;
    });
  }

  #writable(dim) {
    if (this.collection) return this.collection;
    if (!Number.isInteger(dim) || dim <= 0) throw bad('vectors[0] must be a non-empty array of numbers');
    this.collection = Collection.create({ dim, metric: this.metric });
    this.dim = dim;
    this.#fresh = this.collection;
    return this.collection;
  }

  /**
   * The `k` documents nearest to `query`, best first, each with its similarity (higher is more
   * similar; see `similarity` in common.js): `cosine` cos ∈ [−1, 1], `ip` the inner product,
   * `l2` 1 / (1 + squared distance), `l1` 1 / (1 + distance), both in (0, 1].
   *
   * `filter`: a horosvec filter object over the document metadata (`{ source: 'foldoc' }`,
   * `{ rank: { $lt: 1000 } }`), evaluated in the core during the search; or a `(doc) => boolean`
   * function, slower: the store over-fetches, and when too few of those match, scans every
   * document (in pages) and searches the matching ones, so it returns `min(k, matches)` documents.
   * @throws `HV_INVALID_ARGUMENT` (k not a positive integer, a bad filter), `HV_DIM_MISMATCH`
   */
  async similaritySearchVectorWithScore(query, k, filter) {
    const hits = await this.#search(query, k, filter);
    return hits.map((h) => [h.doc, similarity(this.metric, h.distance)]);
  }

  // [{ id, distance, doc }], best first
  async #search(query, k, filter) {
    checkK(k);
    const kind = filterKind(filter);
    const c = this.collection;
    if (c === undefined) return [];
    if (kind !== 'function') {
      const hits = await c.search(query, { k, filter: underMeta(filter) });
      return hits.map((h) => ({ id: h.id, distance: h.distance, doc: toDocument(h.id, h.metadata) }));
    }
    // over-fetch, keep the matching ones
    const fetch = Math.max(4 * k, k + 32);
    const first = await c.search(query, { k: fetch });
    const kept = [];
    for (const h of first) {
      const doc = toDocument(h.id, h.metadata);
      if (filter(doc)) {
        kept.push({ id: h.id, distance: h.distance, doc });
        if (kept.length === k) return kept;
      }
    }
    if (first.length < fetch) return kept; // that was every document
    // too few: the predicate over every document, then a search restricted to the matches
    const ids = await matchingIds(c, filter);
    if (ids.length === 0) return [];
    const hits = await c.search(query, { k, ids });
    return hits.map((h) => ({ id: h.id, distance: h.distance, doc: toDocument(h.id, h.metadata) }));
  }

  /**
   * The function `similaritySearchWithRelevanceScores` maps each similarity through, to a
   * relevance in [0, 1] (higher is more relevant): `cosine` (1 + cos) / 2; `ip` (1 + q·x) / 2
   * clamped to [0, 1] (equal to cosine's for unit-length vectors); `l2` and `l1` the similarity
   * itself, 1 / (1 + distance).
   * @returns {(similarity: number) => number}
   */
  _selectRelevanceScoreFn() {
    if (this.metric === 'cosine' || this.metric === 'ip') return (s) => Math.min(1, Math.max(0, (1 + s) / 2));
    return (s) => s;
  }

  /**
   * As `similaritySearchWithScore`, with each score a relevance in [0, 1] (`_selectRelevanceScoreFn`).
   * (@langchain/core 1.x has no such method; this one follows LangChain Python's.)
   */
  async similaritySearchWithRelevanceScores(query, k = 4, filter = undefined) {
    const relevance = this._selectRelevanceScoreFn();
    const found = await this.similaritySearchWithScore(query, k, filter);
    return found.map(([doc, s]) => [doc, relevance(s)]);
  }

  /**
   * Maximal marginal relevance: the `fetchK` (default 20) documents nearest to the query (with
   * `filter`), of which `k` are picked one at a time, each maximising
   * `lambda·cos(query, d) − (1 − lambda)·max cos(d, picked)` (`lambda` default 0.5: 1 is plain
   * relevance, 0 most diverse).
   */
  async maxMarginalRelevanceSearch(query, options, _callbacks) {
    if (options === null || typeof options !== 'object') throw bad('maxMarginalRelevanceSearch needs options such as { k: 4 }');
    const { k, fetchK = 20, lambda = 0.5, filter } = options;
    checkK(k);
    checkK(fetchK, 'fetchK');
    if (typeof lambda !== 'number' || !(lambda >= 0 && lambda <= 1)) throw bad(`lambda must be a number in [0, 1], got ${lambda}`);
    filterKind(filter);
    const q = await this.embeddings.embedQuery(query);
    const candidates = await this.#search(q, Math.max(fetchK, k), filter);
    if (candidates.length === 0) return [];
    const vectors = candidates.map((c) => this.collection.get(c.id)?.vector ?? new Float32Array(q.length));
    return mmr(q, vectors, k, lambda).map((i) => candidates[i].doc);
  }

  /**
   * Deletes by id (`{ ids }`: unknown ids are ignored) or by filter (`{ filter }`: a horosvec
   * filter object over the metadata, run in the core as one write; or a `(doc) => boolean`
   * function, which scans every document first). Exactly one of the two.
   * @throws `HV_INVALID_ARGUMENT` (neither or both, bad ids, a bad filter)
   */
  async delete(params) {
    if (params === null || typeof params !== 'object') throw bad('delete needs { ids } or { filter }');
    const { ids, filter } = params;
    if ((ids === undefined) === (filter === undefined)) throw bad('delete needs exactly one of { ids } or { filter }');
    if (ids !== undefined) {
      if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw bad('ids must be an array of string ids');
      if (this.collection === undefined || ids.length === 0) return;
      await this.collection.delete(ids);
      return;
    }
    const kind = filterKind(filter);
    if (kind === undefined) throw bad('delete needs a filter (use {} to delete every document)');
    const c = this.collection;
    if (c === undefined) return;
    if (kind === 'object') {
      await c.deleteWhere(underMeta(filter));
      return;
    }
    const doomed = await matchingIds(c, filter);
    if (doomed.length > 0) await c.delete(doomed);
  }

  /** The stored documents with these ids, in order (`undefined` for an unknown id). */
  async getByIds(ids) {
    if (!Array.isArray(ids)) throw bad('getByIds needs an array of ids');
    return ids.map((id) => {
      const r = this.collection?.get(id);
      return r === undefined ? undefined : toDocument(id, r.metadata);
    });
  }

  /** Builds the collection's approximate index (in-memory collections search exactly until then). */
  async buildIndex(options) {
    if (this.collection !== undefined) await this.collection.buildIndex(options);
  }

  /** Closes the collection (a durable one releases its directory). */
  async close() {
    if (this.collection !== undefined) await this.collection.close();
  }

  /**
   * Writes a snapshot of the store to `directory` (created if needed): the collection's
   * `toBytes()` and a small JSON of its arguments, each replaced atomically. Works on any
   * collection (native, wasm, durable); `load` reads it back.
   */
  async save(directory) {
    if (typeof directory !== 'string' || directory === '') throw bad('save needs a directory path');
    const { fsp, path } = await fs();
    try {
      await fsp.mkdir(directory, { recursive: true });
      const args = { format: FORMAT, version: FORMAT_VERSION, metric: this.metric, dim: this.dim ?? null, snapshot: this.collection ? SNAPSHOT_FILE : null };
      if (this.collection) await writeAtomic(fsp, path.join(directory, SNAPSHOT_FILE), await this.collection.toBytes());
      await writeAtomic(fsp, path.join(directory, ARGS_FILE), JSON.stringify(args));
    } catch (e) {
      throw ioError(NAME, e, directory);
    }
  }

  /**
   * Reads a store written by `save` into an in-memory collection, of `options.Collection` (e.g.
   * the `Collection` of 'horosvec/wasm') or else of the package's default backend.
   * @throws `HV_IO` (no store there, or unreadable), `HV_CORRUPT` (files `save` did not write, or
   * damaged), `HV_VERSION` (another format version)
   */
  static async load(directory, embeddings, options = {}) {
    if (typeof directory !== 'string' || directory === '') throw bad('load needs a directory path');
    if (options === null || typeof options !== 'object') throw bad('options must be an object such as { Collection }');
    const { fsp, path } = await fs();
    const read = async (file, encoding) => {
      try {
        return await fsp.readFile(path.join(directory, file), encoding);
      } catch (e) {
        throw coded('HV_IO', `cannot read ${path.join(directory, file)} (is it a directory written by save?): ${e.message}`, e);
      }
    };
    let args;
    try {
      args = JSON.parse(await read(ARGS_FILE, 'utf8'));
    } catch (e) {
      if (e.code === 'HV_IO') throw e;
      throw coded('HV_CORRUPT', `${path.join(directory, ARGS_FILE)} is not JSON`, e);
    }
    if (args?.format !== FORMAT) throw coded('HV_CORRUPT', `${path.join(directory, ARGS_FILE)} is not a ${FORMAT} file`);
    if (args.version !== FORMAT_VERSION) throw coded('HV_VERSION', `${path.join(directory, ARGS_FILE)} has version ${args.version}, this build reads ${FORMAT_VERSION}`);
    // save writes SNAPSHOT_FILE beside the args, or nothing (null): any other name is damage
    if (args.snapshot !== null && args.snapshot !== SNAPSHOT_FILE) {
      throw coded('HV_CORRUPT', `${path.join(directory, ARGS_FILE)} names no snapshot of ${FORMAT} (${JSON.stringify(args.snapshot) ?? 'none'})`);
    }
    const Cls = options.Collection ?? Collection;
    if (args.snapshot === null) {
      const collection = args.dim === null ? undefined : Cls.create({ dim: args.dim, metric: args.metric });
      return new this(embeddings, { metric: args.metric, collection });
    }
    const bytes = await read(args.snapshot);
    const collection = await Cls.fromBytes(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return new this(embeddings, { collection });
  }

  /**
   * Opens a durable store in `directory` (native Node backend only) over `Collection.open`:
   * every add and delete is durable when its Promise resolves, and the documents are in the
   * collection. Creating one needs `dim`; `metric` defaults to `'cosine'` for a new directory and
   * to the stored one otherwise. `readOnly` opens a view without the writer's lock.
   * @throws `HV_UNSUPPORTED` (not the native backend), `HV_LOCKED`, `HV_INVALID_ARGUMENT` (no
   * `dim` to create, or one differing from the stored dim/metric)
   */
  static async open(directory, embeddings, options = {}) {
    if (typeof directory !== 'string' || directory === '') throw bad('open needs a directory path');
    if (options === null || typeof options !== 'object') throw bad('options must be an object such as { dim: 384 }');
    if (backend !== 'native') throw unsupported(`open needs the native backend (Node.js), this is ${backend}; use load, or pass an in-memory collection`);
    const { dim, metric, readOnly } = options;
    if (metric !== undefined) checkMetric(metric);
    const { fsp, path } = await fs();
    const exists = await fsp.stat(path.join(directory, 'collection.db')).then(() => true, () => false);
    const opts = {};
    if (dim !== undefined) opts.dim = dim;
    if (metric !== undefined || !exists) opts.metric = metric ?? 'cosine';
    if (readOnly !== undefined) opts.readOnly = readOnly;
    const collection = await Collection.open(directory, opts);
    return new this(embeddings, { collection });
  }

  /** A store over `texts` (metadata: one object per text, or one for all). */
  static async fromTexts(texts, metadatas, embeddings, args) {
    if (!Array.isArray(texts)) throw bad('fromTexts needs an array of texts');
    if (Array.isArray(metadatas) && metadatas.length !== texts.length) throw bad(`${metadatas.length} metadata objects for ${texts.length} texts`);
    const docs = texts.map((pageContent, i) => new Document({ pageContent, metadata: { ...(Array.isArray(metadatas) ? metadatas[i] : metadatas) } }));
    return this.fromDocuments(docs, embeddings, args);
  }

  /** A store over `docs` (ids: each document's `id`, else new uuids). */
  static async fromDocuments(docs, embeddings, args) {
    const store = new this(embeddings, args);
    await store.addDocuments(docs);
    return store;
  }
}

export default HorosvecStore;
