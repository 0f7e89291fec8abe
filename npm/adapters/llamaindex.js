// LlamaIndex.TS adapter: `HorosvecVectorStore`, a `BaseVectorStore` of `@llamaindex/core` over a
// horosvec `Collection` (in memory on either backend, or durable through `open`). Each node is
// one record: its id is the node id, its vector the node's embedding, its metadata the shared
// envelope (common.js) `{ text, meta, doc, node, empty? }`:
// - `text`: the node's text; `meta`: `node.metadata` (what `MetadataFilters` address);
// - `doc`: the ref doc id (`node.sourceNode.nodeId`; a `Document` without a source is its own),
//   so `delete(refDocId)` is one durable `deleteWhere({ doc })`, with no side file;
// - `node`: the rest of the node as a JSON string (id, type, relationships, templates, char
//   offsets; LlamaIndex's own stores keep the same thing as `_node_content`), enough to rebuild
//   the node on query; a string, so the core does not index its fields;
// - `empty`: the metadata paths whose value is null, '' or [] (left out when none), which is
//   how `is_empty` is answered in the core.

import { Settings } from '@llamaindex/core/global';
import { BaseVectorStore, FilterCondition, FilterOperator, VectorStoreQueryMode } from '@llamaindex/core/vector-store';
import { jsonToNode, MetadataMode, ObjectType, TextNode } from '@llamaindex/core/schema';
import { Collection, META, argError, envelope, ioError, mmr, similarity, underMeta } from './common.js';
import { syncDir, writeAtomic } from '../lib/files.js';
import { hvError } from '../lib/errors.js';

const NAME = 'HorosvecVectorStore';
const METRICS = ['cosine', 'l2', 'ip', 'l1'];
const PERSIST_FILE = 'vector_store.json';
const PERSIST_FORMAT = 'horosvec-llamaindex';
const PERSIST_VERSION = 1;
const DEFAULT_PERSIST_DIR = './storage';
// `BaseVectorStore`'s constructor reads `Settings.embedModel` (which throws when unset) unless
// given a model; this placeholder stands for "none given", resolved lazily by the getter below.
const NO_MODEL = Object.freeze({ placeholder: true });
// each store's own embedding model (a WeakMap: the base constructor sets it before this class's
// private fields exist)
const models = new WeakMap();

// node:fs and node:path, loaded only by the persistence methods, so that the module itself
// loads in a browser (in-memory stores over 'horosvec/wasm').
async function nodeFs() {
  const [fs, path] = await Promise.all([import('node:fs/promises'), import('node:path')]);
  return { fs, path };
}

function fail(code, message) {
  return hvError(code, `${NAME}: ${message}`);
}
const bad = (message) => argError(NAME, message);

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);
}

// Metadata paths (dotted, through nested plain objects) whose value is null, '' or [].
function emptyPaths(meta, prefix = '', out = []) {
  for (const [k, v] of Object.entries(meta)) {
    const p = prefix + k;
    if (v === null || v === '' || (Array.isArray(v) && v.length === 0)) out.push(p);
    else if (isPlainObject(v)) emptyPaths(v, `${p}.`, out);
  }
  return out;
}

function scalarValue(op, value) {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return value;
  throw bad(`filter operator ${JSON.stringify(op)} needs a string or a finite number, got ${describe(value)}`);
}

function arrayValue(op, value) {
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))) return value;
  throw bad(`filter operator ${JSON.stringify(op)} needs an array of strings or finite numbers, got ${describe(value)}`);
}

function describe(v) {
  if (v === undefined) return 'undefined';
  if (typeof v === 'number') return String(v); // JSON prints NaN and ±Infinity as null
  try {
    return JSON.stringify(v)?.slice(0, 60) ?? typeof v;
  } catch {
    return typeof v;
  }
}

// One LlamaIndex `MetadataFilter` as a core filter over the node metadata (`underMeta` moves it
// under `meta.` afterwards). Semantics (those of `SimpleVectorStore`, with the core's rule for
// arrays: a metadata array matches `==`, `in` and the comparisons on any of its elements):
// every operator but `is_empty` is false when the key is absent.
function translateOne(f) {
  if (f === null || typeof f !== 'object' || Array.isArray(f)) throw bad(`a filter must be { key, operator, value }, got ${describe(f)}`);
  if (Array.isArray(f.filters)) return translateFilters(f); // nested MetadataFilters
  const { key, operator, value } = f;
  if (typeof key !== 'string' || key === '' || key.startsWith('$')) throw bad(`filter key must be a non-empty string not starting with "$", got ${describe(key)}`);
  switch (operator) {
    case FilterOperator.EQ:
      return { [key]: scalarValue(operator, value) };
    case FilterOperator.NE:
      return { [key]: { $exists: true, $ne: scalarValue(operator, value) } };
    case FilterOperator.GT:
      return { [key]: { $gt: scalarValue(operator, value) } };
    case FilterOperator.LT:
      return { [key]: { $lt: scalarValue(operator, value) } };
    case FilterOperator.GTE:
      return { [key]: { $gte: scalarValue(operator, value) } };
    case FilterOperator.LTE:
      return { [key]: { $lte: scalarValue(operator, value) } };
    case FilterOperator.IN:
    case FilterOperator.ANY:
      return { [key]: { $in: arrayValue(operator, value) } };
    case FilterOperator.NIN:
      return { [key]: { $exists: true, $nin: arrayValue(operator, value) } };
    case FilterOperator.ALL: {
      const values = arrayValue(operator, value);
      if (values.length === 0) return { [key]: { $exists: true } };
      return values.length === 1 ? { [key]: values[0] } : { $and: values.map((v) => ({ [key]: v })) };
    }
    case FilterOperator.CONTAINS:
      return { [key]: scalarValue(operator, value) };
    case FilterOperator.TEXT_MATCH:
      if (typeof value !== 'string') throw bad(`filter operator "text_match" needs a string, got ${describe(value)}`);
      return { [key]: { $contains: value } };
    case FilterOperator.IS_EMPTY:
      return { $or: [{ [key]: { $exists: false } }, { $empty: key }] };
    default:
      throw bad(
        `unknown filter operator ${describe(operator)} (known: ${Object.values(FilterOperator).map((o) => JSON.stringify(o)).join(' ')})`,
      );
  }
}

const MATCH_NONE = { $not: {} };

function translateFilters(filters) {
  if (filters === null || typeof filters !== 'object' || !Array.isArray(filters.filters)) {
    throw bad(`filters must be MetadataFilters { filters: [...], condition?: "and" | "or" }, got ${describe(filters)}`);
  }
  const condition = filters.condition ?? FilterCondition.AND;
  if (condition !== FilterCondition.AND && condition !== FilterCondition.OR) {
    throw bad(`unknown filter condition ${describe(condition)} (known: "and", "or")`);
  }
  const parts = filters.filters.map(translateOne);
  if (parts.length === 0) return condition === FilterCondition.AND ? {} : MATCH_NONE;
  if (parts.length === 1) return parts[0];
  return condition === FilterCondition.AND ? { $and: parts } : { $or: parts };
}

// `underMeta`, except that the adapter's own `$empty: path` (is_empty) becomes `{ empty: path }`
// at the envelope's top level.
function toCore(filter) {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return filter;
  if ('$empty' in filter) return { empty: filter.$empty };
  const out = {};
  const rest = {};
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$and' || k === '$or') out[k] = v.map(toCore);
    else if (k === '$not') out[k] = toCore(v);
    else rest[k] = v;
  }
  return { ...underMeta(rest), ...out };
}

/**
 * The core filter (over the envelope) of a LlamaIndex `MetadataFilters`. Exported for tests and
 * for callers who use the collection directly.
 * @param {import('@llamaindex/core/vector-store').MetadataFilters} filters
 */
export function toHorosvecFilter(filters) {
  return toCore(translateFilters(filters));
}

function readVector(v, what, dim) {
  if (!(Array.isArray(v) || ArrayBuffer.isView(v)) || v.length === 0) throw bad(`${what} must be a non-empty array of numbers, got ${describe(v)}`);
  if (dim !== undefined && v.length !== dim) {
    throw fail('HV_DIM_MISMATCH', `${what} has ${v.length} values, the store's dimension is ${dim}`);
  }
  for (let i = 0; i < v.length; i++) {
    if (typeof v[i] !== 'number' || !Number.isFinite(v[i])) throw fail('HV_INVALID_VECTOR', `${what}[${i}] is ${describe(v[i])}, not a finite number`);
  }
  return v;
}

function nodeText(node) {
  if (typeof node.text === 'string') return node.text;
  return node.getContent(MetadataMode.NONE);
}

function refDocOf(node) {
  const src = node.sourceNode?.nodeId;
  if (typeof src === 'string' && src !== '') return src;
  if (node.type === ObjectType.DOCUMENT || node.type === ObjectType.IMAGE_DOCUMENT) return node.id_;
  return undefined;
}

// A node from a stored record: the envelope written by `add`, or any other record (then a
// TextNode of its `text`, with `meta` or the whole metadata as metadata).
function recordToNode(id, metadata) {
  const m = metadata ?? {};
  const isEnvelope = isPlainObject(m) && isPlainObject(m[META]);
  if (isEnvelope && typeof m.node === 'string') {
    let json;
    try {
      json = JSON.parse(m.node);
    } catch {
      throw fail('HV_CORRUPT', `record ${JSON.stringify(id)}: its "node" field is not JSON`);
    }
    return jsonToNode({ ...json, id_: String(id), text: m.text ?? '', metadata: m[META] }, json.type ?? ObjectType.TEXT);
  }
  return new TextNode({ id_: String(id), text: typeof m.text === 'string' ? m.text : '', metadata: isEnvelope ? m[META] : isPlainObject(m) ? m : {} });
}

async function exists(fs, p) {
  try {
    await fs.stat(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * A LlamaIndex vector store over a horosvec collection. See llamaindex.d.ts for the contract.
 */
export class HorosvecVectorStore extends BaseVectorStore {
  storesText = true;
  isEmbeddingQuery = true;
  #collection;
  #dim;
  #dimGiven;
  #metric;
  #persistPath;
  #ownsCollection = false;
  #persisting = Promise.resolve();
  #closed = false;

  constructor(options = {}) {
    if (options === null || typeof options !== 'object') throw bad('options must be an object such as { dim: 384, metric: "cosine" }');
    const { dim, metric, collection, embedModel, embeddingModel, ...rest } = options;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) throw bad(`unknown option ${JSON.stringify(unknown[0])} (known: dim, metric, collection, embedModel)`);
    if (dim !== undefined && !(Number.isInteger(dim) && dim > 0)) throw bad(`dim must be a positive integer, got ${describe(dim)}`);
    if (metric !== undefined && !METRICS.includes(metric)) throw bad(`metric must be one of ${METRICS.join(', ')}, got ${describe(metric)}`);
    if (collection !== undefined && (collection === null || typeof collection.search !== 'function' || typeof collection.deleteWhere !== 'function')) {
      throw bad('collection must be a horosvec Collection');
    }
    if (collection !== undefined) {
      if (dim !== undefined && dim !== collection.dim) throw bad(`dim ${dim} differs from the collection's ${collection.dim}`);
      if (metric !== undefined && metric !== collection.metric) throw bad(`metric ${metric} differs from the collection's ${collection.metric}`);
    }
    super({ embedModel: embedModel ?? embeddingModel ?? NO_MODEL });
    this.#collection = collection;
    this.#dim = collection?.dim ?? dim;
    this.#dimGiven = dim;
    this.#metric = collection?.metric ?? metric ?? 'cosine';
  }

  /** The embedding model given, else LlamaIndex's `Settings.embedModel` (read when used). */
  get embedModel() {
    return models.get(this) ?? Settings.embedModel;
  }
  set embedModel(model) {
    if (model === NO_MODEL || model === undefined || model === null) models.delete(this);
    else models.set(this, model);
  }

  /** The horosvec collection (undefined until the first `add` when no `dim` was given). */
  client() {
    return this.#ensure();
  }

  get dim() {
    return this.#dim;
  }
  get metric() {
    return this.#metric;
  }

  // the collection, made now if the dimension is known and there is none yet
  #ensure() {
    if (this.#closed) throw fail('HV_CLOSED', 'the store is closed');
    if (this.#collection === undefined && this.#dim !== undefined) {
      this.#collection = Collection.create({ dim: this.#dim, metric: this.#metric });
      this.#ownsCollection = true;
    }
    return this.#collection;
  }

  /**
   * Stores the nodes (upsert by node id: a node added again replaces its record). Every node
   * needs an embedding of the store's dimension. All or nothing.
   */
  async add(nodes) {
    if (!Array.isArray(nodes)) throw bad(`add needs an array of nodes, got ${describe(nodes)}`);
    if (nodes.length === 0) return [];
    let dim = this.#dim;
    const ids = [];
    const vectors = [];
    const metas = [];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i];
      if (node === null || typeof node !== 'object' || typeof node.toJSON !== 'function' || typeof node.getContent !== 'function') throw bad(`nodes[${i}] is not a LlamaIndex node (BaseNode)`);
      if (typeof node.id_ !== 'string' || node.id_ === '') throw bad(`nodes[${i}].id_ must be a non-empty string`);
      if (node.embedding === undefined) throw bad(`nodes[${i}] (${node.id_}) has no embedding: embed the nodes first (e.g. with the embed model as a transformation)`);
      const vector = readVector(node.embedding, `nodes[${i}].embedding`, dim);
      dim ??= vector.length;
      // toJSON, not toMutableJSON (whose deep copy of the embedding costs); the metadata is
      // copied (structuredClone, as toMutableJSON would), which refuses functions and symbols
      // that JSON would silently drop
      let full;
      let metadata;
      try {
        full = node.toJSON();
        metadata = structuredClone(full.metadata);
      } catch (e) {
        throw Object.assign(bad(`nodes[${i}] (${node.id_}) cannot be stored: ${e.message} (metadata must be JSON)`), { cause: e });
      }
      const { metadata: _m, embedding: _e, text: _t, ...rest } = full;
      const meta = metadata ?? {};
      if (!isPlainObject(meta)) throw bad(`nodes[${i}].metadata must be a plain object`);
      const env = envelope(nodeText(node), meta, refDocOf(node));
      let json;
      try {
        json = JSON.stringify(rest);
      } catch (e) {
        throw Object.assign(bad(`nodes[${i}] cannot be serialised: ${e.message}`), { cause: e });
      }
      env.node = json;
      const empty = emptyPaths(meta);
      if (empty.length > 0) env.empty = empty;
      ids.push(node.id_);
      vectors.push(vector);
      metas.push(env);
    }
    const fresh = this.#collection === undefined;
    if (this.#dim === undefined) this.#dim = dim;
    const c = this.#ensure();
    try {
      // one flat Float32Array: the binding reads it as is, where number arrays cost a conversion each
      const flat = new Float32Array(vectors.length * dim);
      for (let i = 0; i < vectors.length; i++) flat.set(vectors[i], i * dim);
      await c.upsert(ids, flat, metas);
    } catch (e) {
      if (fresh && this.#collection === c && c.size === 0) {
        // the collection this call made stays unmade: the next add may set another dimension
        this.#collection = undefined;
        this.#dim = this.#dimGiven;
        await c.close();
      }
      throw e;
    }
    if (this.#persistPath !== undefined) await this.persist(this.#persistPath);
    return ids;
  }

  /** Deletes every node whose ref doc id is `refDocId` (one `deleteWhere`: durable on an opened store). */
  async delete(refDocId, _deleteOptions) {
    if (typeof refDocId !== 'string' || refDocId === '') throw bad(`delete needs a ref doc id (a non-empty string), got ${describe(refDocId)}`);
    const c = this.#ensure();
    if (c === undefined) return;
    await c.deleteWhere({ doc: refDocId });
    if (this.#persistPath !== undefined) await this.persist(this.#persistPath);
  }

  /** Deletes nodes by node id; resolves to how many existed. */
  async deleteNodes(nodeIds) {
    if (!Array.isArray(nodeIds) || !nodeIds.every((id) => typeof id === 'string')) throw bad('deleteNodes needs an array of node ids (strings)');
    const c = this.#ensure();
    if (c === undefined || nodeIds.length === 0) return 0;
    const n = await c.delete(nodeIds);
    if (this.#persistPath !== undefined) await this.persist(this.#persistPath);
    return n;
  }

  /** The stored nodes with these ids (unknown ids are skipped), with their embeddings. */
  async getNodes(nodeIds) {
    if (!Array.isArray(nodeIds)) throw bad('getNodes needs an array of node ids');
    const c = this.#ensure();
    if (c === undefined) return [];
    const out = [];
    for (const id of nodeIds) {
      const r = c.get(id);
      if (r === undefined) continue;
      const node = recordToNode(id, r.metadata);
      node.embedding = Array.from(r.vector);
      out.push(node);
    }
    return out;
  }

  /**
   * The `similarityTopK` nodes nearest `queryEmbedding` (best first) among those `docIds` and
   * `filters` allow, in `default` or `mmr` mode.
   */
  async query(query, _options) {
    if (query === null || typeof query !== 'object') throw bad('query must be a VectorStoreQuery object');
    const { similarityTopK, docIds, filters, mode = VectorStoreQueryMode.DEFAULT, mmrThreshold, customParams } = query;
    if (!(Number.isInteger(similarityTopK) && similarityTopK > 0)) throw bad(`similarityTopK must be a positive integer, got ${describe(similarityTopK)}`);
    if (mode !== VectorStoreQueryMode.DEFAULT && mode !== VectorStoreQueryMode.MMR) {
      throw fail('HV_UNSUPPORTED', `query mode ${describe(mode)} is not supported (supported: "default", "mmr")`);
    }
    if (mode === VectorStoreQueryMode.MMR && mmrThreshold !== undefined && !(typeof mmrThreshold === 'number' && mmrThreshold >= 0 && mmrThreshold <= 1)) {
      throw bad(`mmrThreshold (MMR's lambda) must be a number in [0, 1], got ${describe(mmrThreshold)}`);
    }
    if (docIds !== undefined && docIds !== null && !(Array.isArray(docIds) && docIds.every((d) => typeof d === 'string'))) {
      throw bad(`docIds must be an array of ref doc ids (strings), got ${describe(docIds)}`);
    }
    const params = customParams ?? {};
    if (typeof params !== 'object') throw bad('customParams must be an object { nodeIds?, ef?, fetchK? }');
    const { nodeIds, ef, fetchK } = params;
    if (nodeIds !== undefined && !(Array.isArray(nodeIds) && nodeIds.every((d) => typeof d === 'string'))) throw bad('customParams.nodeIds must be an array of node ids (strings)');
    if (ef !== undefined && !(Number.isInteger(ef) && ef > 0)) throw bad(`customParams.ef must be a positive integer, got ${describe(ef)}`);
    if (fetchK !== undefined && !(Number.isInteger(fetchK) && fetchK > 0)) throw bad(`customParams.fetchK must be a positive integer, got ${describe(fetchK)}`);

    let core = filters === undefined || filters === null ? undefined : toHorosvecFilter(filters);
    if (docIds !== undefined && docIds !== null) {
      const byDoc = { doc: { $in: docIds } };
      core = core === undefined ? byDoc : { $and: [core, byDoc] };
    }
    let embedding = query.queryEmbedding;
    if (embedding === undefined || embedding === null) {
      if (typeof query.queryStr !== 'string') throw bad('query needs queryEmbedding (or queryStr with an embed model)');
      embedding = await this.embedModel.getTextEmbedding(query.queryStr);
    }
    const c = this.#ensure();
    readVector(embedding, 'queryEmbedding', this.#dim);
    if (c === undefined) return { nodes: [], similarities: [], ids: [] };

    const mmrMode = mode === VectorStoreQueryMode.MMR;
    const k = !mmrMode ? similarityTopK : fetchK !== undefined ? Math.max(fetchK, similarityTopK) : Math.max(4 * similarityTopK, 20);
    const options = { k };
    if (core !== undefined) options.filter = core;
    if (nodeIds !== undefined) options.ids = nodeIds;
    if (ef !== undefined) options.ef = ef;
    let hits = await c.search(embedding, options);
    if (mmrMode && hits.length > 0) {
      const vectors = hits.map((h) => c.get(h.id)?.vector ?? new Float32Array(c.dim));
      hits = mmr(embedding, vectors, similarityTopK, mmrThreshold ?? 0.5).map((i) => hits[i]);
    }
    return {
      nodes: hits.map((h) => recordToNode(h.id, h.metadata)),
      similarities: hits.map((h) => similarity(this.#metric, h.distance)),
      ids: hits.map((h) => String(h.id)),
    };
  }

  /**
   * Writes an in-memory snapshot: `persistPath` (default `./storage/vector_store.json`) gets a
   * small JSON naming the snapshot file written beside it (`toBytes()`). The JSON is replaced
   * last, by a rename, so a crash leaves the previous snapshot or the new one, never a mix.
   */
  persist(persistPath) {
    // one persist at a time (a loaded store persists after each add and delete)
    const run = this.#persisting.then(() => this.#persistNow(persistPath).catch((e) => {
      throw ioError(NAME, e, persistPath);
    }));
    this.#persisting = run.catch(() => {});
    return run;
  }

  async #persistNow(persistPath) {
    const { fs, path } = await nodeFs();
    persistPath ??= path.join(DEFAULT_PERSIST_DIR, PERSIST_FILE);
    if (typeof persistPath !== 'string' || persistPath === '') throw bad('persistPath must be a non-empty string (a file path)');
    const c = this.#ensure();
    const dir = path.dirname(persistPath);
    await fs.mkdir(dir, { recursive: true });
    const base = path.basename(persistPath).replace(/\.json$/, '');
    let previous;
    if (await exists(fs, persistPath)) {
      let old;
      try {
        old = JSON.parse(await fs.readFile(persistPath, 'utf8'));
      } catch {
        old = undefined;
      }
      if (old?.format !== PERSIST_FORMAT) {
        throw bad(`${persistPath} exists and was not written by HorosvecVectorStore.persist (a SimpleVectorStore file?): not overwritten`);
      }
      // only a snapshot of ours beside it is removed once replaced
      if (typeof old.snapshot === 'string' && old.snapshot.startsWith(`${base}.`) && old.snapshot.endsWith('.hvsnap') && !/[/\\]/.test(old.snapshot)) previous = old.snapshot;
    }
    const snapshot = c === undefined ? null : `${base}.${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.hvsnap`;
    if (snapshot !== null) {
      const bytes = await c.toBytes();
      await writeAtomic(fs, path.join(dir, snapshot), bytes);
    }
    const manifest = { format: PERSIST_FORMAT, version: PERSIST_VERSION, dim: this.#dim ?? null, metric: this.#metric, snapshot };
    await writeAtomic(fs, persistPath, JSON.stringify(manifest));
    await syncDir(fs, dir);
    if (previous !== undefined && previous !== snapshot) await fs.unlink(path.join(dir, previous)).catch(() => {});
  }

  /**
   * A store from `persistDir/vector_store.json` (see `fromPersistPath`).
   */
  static async fromPersistDir(persistDir = DEFAULT_PERSIST_DIR, embedModel, options) {
    if (typeof persistDir !== 'string' || persistDir === '') throw bad('persistDir must be a non-empty string');
    const { path } = await nodeFs();
    return HorosvecVectorStore.fromPersistPath(path.join(persistDir, PERSIST_FILE), embedModel, options);
  }

  /**
   * A store loaded from what `persist(persistPath)` wrote (an empty store when `persistPath` does
   * not exist). The store remembers the path and persists again after each add and delete, like
   * LlamaIndex's `SimpleVectorStore`. `options.Collection`: the horosvec `Collection` class to
   * load into (default: the package's own; pass the one of 'horosvec/wasm' for wasm).
   */
  static async fromPersistPath(persistPath, embedModel, options = {}) {
    if (typeof persistPath !== 'string' || persistPath === '') throw bad('persistPath must be a non-empty string (a file path)');
    if (options === null || typeof options !== 'object') throw bad('fromPersistPath options must be an object { Collection?, dim?, metric? }');
    const { Collection: Coll = Collection, dim, metric, ...rest } = options;
    if (Object.keys(rest).length > 0) throw bad(`unknown option ${JSON.stringify(Object.keys(rest)[0])} (known: Collection, dim, metric)`);
    const { fs, path } = await nodeFs();
    let store;
    if (!(await exists(fs, persistPath))) {
      store = new HorosvecVectorStore({ embedModel, dim, metric });
    } else {
      let manifest;
      try {
        manifest = JSON.parse((await fs.readFile(persistPath, 'utf8')).toString());
      } catch (e) {
        throw Object.assign(fail('HV_CORRUPT', `${persistPath} is not JSON`), { cause: e });
      }
      if (manifest?.format !== PERSIST_FORMAT) {
        throw fail('HV_CORRUPT', `${persistPath} was not written by HorosvecVectorStore.persist (a SimpleVectorStore file?)`);
      }
      if (manifest.version !== PERSIST_VERSION) throw fail('HV_VERSION', `${persistPath} has format version ${manifest.version}, this version reads ${PERSIST_VERSION}`);
      if (manifest.snapshot === null) {
        store = new HorosvecVectorStore({ embedModel, metric: manifest.metric, ...(manifest.dim !== null ? { dim: manifest.dim } : {}) });
      } else {
        if (typeof manifest.snapshot !== 'string' || manifest.snapshot.includes('/') || manifest.snapshot.includes('\\')) throw fail('HV_CORRUPT', `${persistPath}: bad snapshot name`);
        let bytes;
        try {
          bytes = await fs.readFile(path.join(path.dirname(persistPath), manifest.snapshot));
        } catch (e) {
          throw Object.assign(fail('HV_CORRUPT', `the snapshot ${manifest.snapshot} named by ${persistPath} cannot be read`), { cause: e });
        }
        const collection = await Coll.fromBytes(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
        store = new HorosvecVectorStore({ embedModel, collection });
        store.#ownsCollection = true;
      }
    }
    store.#persistPath = persistPath;
    return store;
  }

  /**
   * A durable store in directory `dir` (native Node only): every add and delete is durable when
   * its Promise resolves; no persist step. `readOnly` opens without the writer's lock.
   */
  static async open(dir, options = {}) {
    if (typeof dir !== 'string' || dir === '') throw bad('open needs a directory path (a non-empty string)');
    if (options === null || typeof options !== 'object') throw bad('open options must be an object');
    const { dim, metric = 'cosine', readOnly, embedModel, Collection: Coll = Collection, ...rest } = options;
    if (!METRICS.includes(metric)) throw bad(`metric must be one of ${METRICS.join(', ')}, got ${describe(metric)}`);
    const openOptions = { ...rest, metric };
    if (dim !== undefined) openOptions.dim = dim;
    if (readOnly !== undefined) openOptions.readOnly = readOnly;
    const collection = await Coll.open(dir, openOptions);
    const store = new HorosvecVectorStore({ collection, embedModel });
    store.#ownsCollection = true;
    return store;
  }

  /** Closes the collection if the store made or opened it (a collection passed in is the caller's). */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsCollection && this.#collection !== undefined) await this.#collection.close();
  }
}
