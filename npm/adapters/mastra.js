// `horosvec/mastra`: a Mastra vector store (`MastraVector` of @mastra/core) over named
// horosvec collections, one collection per Mastra index. Records keep Mastra's metadata inside
// the common envelope (`{ meta }`, common.js); Mastra filters are translated to horosvec
// filters over `meta.*` and run in the core.

import { MastraVector, validateTopK, validateUpsert } from '@mastra/core/vector';
import { BaseFilterTranslator } from '@mastra/core/vector/filter';
import { ErrorCategory, ErrorDomain, MastraError } from '@mastra/core/error';
import { openDatabase } from 'horosvec';
import { envelope, META, similarity, underMeta } from './common.js';

const STORE = 'HOROSVEC';
/** Mastra's metric names → horosvec's. */
export const METRICS = { cosine: 'cosine', euclidean: 'l2', dotproduct: 'ip' };
const MASTRA_METRIC = { cosine: 'cosine', l2: 'euclidean', ip: 'dotproduct' };
// horosvec codes that mean the caller's input was wrong
const USER_CODES = new Set(['HV_DIM_MISMATCH', 'HV_INVALID_VECTOR', 'HV_INVALID_ARGUMENT', 'HV_DUPLICATE_ID', 'HV_NOT_FOUND', 'HV_ALREADY_EXISTS', 'HV_READ_ONLY', 'HV_LOCKED', 'HV_CLOSED', 'HV_UNSUPPORTED']);
// the envelope field marking the records of one upsert with a deleteFilter (see upsert)
const WRITE = 'w';
const PAGE = 1000;

const all = (parts) => (parts.length === 1 ? parts[0] : { $and: parts });

function errorId(op, status) {
  return `MASTRA_VECTOR_${STORE}_${op}_${status}`;
}

/** A Mastra USER error for a bad argument, raised before anything is written. */
function userError(op, status, text, details = {}) {
  return new MastraError({ id: errorId(op, status), text: `HorosvecVector: ${text}`, domain: ErrorDomain.MASTRA_VECTOR, category: ErrorCategory.USER, details });
}

/** Wraps an error from horosvec (a `code` `HV_*`) as a MastraError; its code is in `details.code`. */
function wrap(op, e, details = {}) {
  if (e instanceof MastraError) return e;
  const code = e && typeof e.code === 'string' ? e.code : undefined;
  return new MastraError({
    id: errorId(op, 'FAILED'),
    text: `HorosvecVector: ${op.toLowerCase()} failed: ${e && e.message ? e.message : String(e)}`,
    domain: ErrorDomain.MASTRA_VECTOR,
    category: code !== undefined && USER_CODES.has(code) ? ErrorCategory.USER : ErrorCategory.THIRD_PARTY,
    details: { ...details, ...(code !== undefined ? { code } : {}) },
  }, e);
}

/**
 * Mastra's filter (MongoDB-style) → a horosvec filter over Mastra's metadata (before
 * `underMeta`). Supported: `$eq $ne $gt $gte $lt $lte $in $nin $all $exists $contains` on
 * fields, `$and $or $not $nor` (and a field-level `$not`). `$elemMatch $regex $options $size`
 * are refused (USER error naming the operator). Dates become ISO strings, as Mastra stores them
 * in JSON.
 */
export class HorosvecFilterTranslator extends BaseFilterTranslator {
  getSupportedOperators() {
    return { ...BaseFilterTranslator.DEFAULT_OPERATORS, array: ['$in', '$nin', '$all'], regex: [], custom: ['$contains'] };
  }

  translate(filter) {
    if (filter === undefined || filter === null) return undefined;
    if (typeof filter !== 'object' || Array.isArray(filter)) throw new Error(`a filter must be an object, got ${Array.isArray(filter) ? 'an array' : typeof filter}`);
    if (Object.keys(filter).length === 0) return undefined;
    return this.#node(filter, '');
  }

  #unsupported(op, path) {
    return new Error(`${path ? `${path}: ` : ''}unsupported operator ${op} (horosvec supports $eq $ne $gt $gte $lt $lte $in $nin $all $exists $contains $and $or $not $nor)`);
  }

  // a filter object (top level or inside $and / $or / $nor / $not)
  #node(node, path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) throw new Error(`${path || 'filter'}: expected a filter object`);
    const parts = [];
    for (const [key, value] of Object.entries(node)) {
      if (key === '$and' || key === '$or' || key === '$nor') {
        if (!Array.isArray(value) || value.length === 0) throw new Error(`${path}${key}: needs a non-empty array of filters`);
        const list = value.map((v, i) => this.#node(v, `${path}${key}[${i}].`));
        parts.push(key === '$nor' ? { $not: { $or: list } } : { [key]: list });
      } else if (key === '$not') {
        if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length === 0) throw new Error(`${path}$not: needs a non-empty filter object`);
        parts.push({ $not: this.#node(value, `${path}$not.`) });
      } else if (key.startsWith('$')) {
        if (this.isValidOperator(key)) throw new Error(`${path}${key}: a field operator needs a field (${key} cannot stand at this level)`);
        throw this.#unsupported(key, path);
      } else {
        parts.push(...this.#field(key, value, `${path}${key}`));
      }
    }
    return all(parts);
  }

  // the conditions on one field, each a filter object
  #field(field, value, path) {
    if (value instanceof RegExp) throw this.#unsupported('$regex', path);
    if (Array.isArray(value)) {
      // MongoDB's exact array match has no horosvec equivalent
      throw new Error(`${path}: an array value is ambiguous; use { $in: [...] } (any of), { $all: [...] } (every one of) or { $contains: value }`);
    }
    if (value === null || typeof value !== 'object' || value instanceof Date) return [{ [field]: this.normalizeComparisonValue(value) }];
    const keys = Object.keys(value);
    if (keys.length === 0) throw new Error(`${path}: an empty condition`);
    if (!keys.some((k) => k.startsWith('$'))) {
      // a nested object: conditions on the subfields
      const out = [];
      for (const [k, v] of Object.entries(value)) {
        if (k.startsWith('$')) throw new Error(`${path}: mixes operators and subfields`);
        out.push(...this.#field(`${field}.${k}`, v, `${path}.${k}`));
      }
      return out;
    }
    const out = [];
    const plain = {};
    for (const [op, operand] of Object.entries(value)) {
      const at = `${path}.${op}`;
      switch (op) {
        case '$eq':
        case '$ne':
        case '$gt':
        case '$gte':
        case '$lt':
        case '$lte':
          plain[op] = this.normalizeComparisonValue(operand);
          break;
        case '$in':
        case '$nin':
          if (!Array.isArray(operand)) throw new Error(`${at}: needs an array`);
          plain[op] = this.normalizeArrayValues(operand);
          break;
        case '$exists':
          if (typeof operand !== 'boolean') throw new Error(`${at}: needs a boolean`);
          plain[op] = operand;
          break;
        case '$all':
          if (!Array.isArray(operand)) throw new Error(`${at}: needs an array`);
          // every value present (an array field holding each, or a scalar field equal to it); [] matches nothing
          if (operand.length === 0) out.push({ [field]: { $in: [] } });
          for (const v of this.normalizeArrayValues(operand)) out.push({ [field]: v });
          break;
        case '$contains':
          // an array field holding the value(s), or a string field holding the substring
          for (const v of Array.isArray(operand) ? operand : [operand]) {
            if (v !== null && typeof v === 'object' && !(v instanceof Date)) throw new Error(`${at}: needs a string, number, boolean or an array of them`);
            out.push({ [field]: { $contains: this.normalizeComparisonValue(v) } });
          }
          break;
        case '$not':
          if (operand instanceof RegExp) throw this.#unsupported('$regex', path);
          out.push({ $not: all(this.#field(field, operand, at)) });
          break;
        default:
          throw this.#unsupported(op, path);
      }
    }
    if (Object.keys(plain).length > 0) out.unshift({ [field]: plain });
    return out;
  }
}

/**
 * Mastra's `MastraVector` over horosvec named collections (`openDatabase`): one collection per
 * index. `new HorosvecVector({ path })` keeps durable indexes under a directory (Node, native);
 * `new HorosvecVector({ database })` uses any `openDatabase()` result (e.g. in memory over
 * `horosvec/wasm`).
 */
export class HorosvecVector extends MastraVector {
  #path;
  #options;
  #db;
  #owned;

  constructor(config = {}) {
    if (config === null || typeof config !== 'object') throw userError('CONSTRUCT', 'INVALID_ARGS', 'needs { path } or { database }');
    const { path, database, id = 'horosvec', disableInit, durability } = config;
    super({ id, disableInit });
    if ((path === undefined) === (database === undefined)) throw userError('CONSTRUCT', 'INVALID_ARGS', 'give exactly one of path (a directory) and database (an openDatabase() result)');
    if (path !== undefined && (typeof path !== 'string' || path === '')) throw userError('CONSTRUCT', 'INVALID_ARGS', 'path must be a non-empty string (a directory)');
    if (database !== undefined && (database === null || typeof database.collection !== 'function' || typeof database.createCollection !== 'function')) {
      throw userError('CONSTRUCT', 'INVALID_ARGS', 'database must be what openDatabase() resolves to');
    }
    this.#path = path;
    this.#options = durability === undefined ? {} : { durability };
    this.#db = database === undefined ? undefined : Promise.resolve(database);
    this.#owned = database === undefined;
  }

  /** The named-collections database (opened on first use when built from a path). */
  database() {
    if (this.#db === undefined) {
      this.#db = openDatabase(this.#path, this.#options);
      this.#db.catch(() => {
        this.#db = undefined; // a later call tries again
      });
    }
    return this.#db;
  }

  /** Closes the database when this store opened it (from `path`); a `database` given to the constructor is the caller's to close. */
  async close() {
    if (!this.#owned || this.#db === undefined) return;
    const db = await this.#db;
    this.#db = undefined;
    await db.close();
  }

  async #collection(op, indexName) {
    if (typeof indexName !== 'string' || indexName === '') throw userError(op, 'INVALID_ARGS', 'indexName must be a non-empty string', {});
    const db = await this.database();
    try {
      return await db.collection(indexName);
    } catch (e) {
      if (e && e.code === 'HV_NOT_FOUND') throw userError(op, 'INDEX_NOT_FOUND', `index ${JSON.stringify(indexName)} does not exist`, { indexName, code: 'HV_NOT_FOUND' });
      throw wrap(op, e, { indexName });
    }
  }

  #filter(op, filter) {
    try {
      return underMeta(new HorosvecFilterTranslator().translate(filter));
    } catch (e) {
      throw userError(op, 'INVALID_FILTER', e.message);
    }
  }

  async createIndex({ indexName, dimension, metric = 'cosine' } = {}) {
    if (!Number.isInteger(dimension) || dimension <= 0) throw userError('CREATE_INDEX', 'INVALID_ARGS', 'dimension must be a positive integer', { indexName: String(indexName) });
    if (!Object.hasOwn(METRICS, metric)) throw userError('CREATE_INDEX', 'INVALID_ARGS', `metric must be cosine, euclidean or dotproduct, got ${JSON.stringify(metric)}`, { indexName: String(indexName) });
    const db = await this.database();
    try {
      if ((await db.listCollections()).some((c) => c.name === indexName)) {
        // as Mastra's stores do: the same dimension is a no-op (a metric change is logged), another one fails
        await this.validateExistingIndex(indexName, dimension, metric);
        return;
      }
      try {
        await db.createCollection(indexName, { dim: dimension, metric: METRICS[metric] });
      } catch (e) {
        // created meanwhile (a concurrent createIndex): the same rule as above
        if (e && e.code === 'HV_ALREADY_EXISTS' && (await db.listCollections()).some((c) => c.name === indexName)) {
          await this.validateExistingIndex(indexName, dimension, metric);
          return;
        }
        throw e;
      }
    } catch (e) {
      throw wrap('CREATE_INDEX', e, { indexName: String(indexName), dimension });
    }
  }

  async listIndexes() {
    const db = await this.database();
    try {
      return (await db.listCollections()).map((c) => c.name);
    } catch (e) {
      throw wrap('LIST_INDEXES', e);
    }
  }

  async describeIndex({ indexName } = {}) {
    const c = await this.#collection('DESCRIBE_INDEX', indexName);
    return { dimension: c.dim, count: c.size, metric: MASTRA_METRIC[c.metric] };
  }

  /** Deletes the index and its vectors; an index that does not exist is a no-op. */
  async deleteIndex({ indexName } = {}) {
    const db = await this.database();
    try {
      if (!(await db.listCollections()).some((c) => c.name === indexName)) return;
      await db.dropCollection(indexName);
    } catch (e) {
      throw wrap('DELETE_INDEX', e, { indexName: String(indexName) });
    }
  }

  /**
   * Inserts or replaces vectors; ids are generated (UUIDs) when absent. With `deleteFilter`,
   * horosvec cannot make the delete and the insert one atomic write, so this gives the
   * guarantee that loses nothing: the new vectors are written first (one atomic batch, marked
   * by this call), then every record matching `deleteFilter` that this call did not write is
   * deleted (one atomic write). A crash between the two leaves the old and the new vectors
   * (never neither; repeating the same upsert finishes it); a failed insert deletes nothing;
   * a concurrent query may see both for that moment.
   */
  async upsert({ indexName, vectors, metadata, ids, sparseVectors, deleteFilter } = {}) {
    validateUpsert(STORE, vectors, metadata, ids, true);
    if (sparseVectors !== undefined) throw userError('UPSERT', 'UNSUPPORTED', 'sparse vectors (hybrid search) are not supported');
    if (ids !== undefined && ids !== null && !ids.every((id) => typeof id === 'string' && id !== '')) throw userError('UPSERT', 'INVALID_IDS', 'ids must be non-empty strings');
    if (metadata !== undefined && metadata !== null && !metadata.every((m) => m === undefined || m === null || (typeof m === 'object' && !Array.isArray(m)))) {
      throw userError('UPSERT', 'INVALID_METADATA', 'metadata must hold one object (or null) per vector');
    }
    const del = deleteFilter === undefined || deleteFilter === null ? undefined : this.#filter('UPSERT', deleteFilter);
    if (deleteFilter !== undefined && deleteFilter !== null && del === undefined) throw userError('UPSERT', 'INVALID_FILTER', 'deleteFilter {} would delete every vector; use deleteIndex');
    const c = await this.#collection('UPSERT', indexName);
    const vectorIds = ids ?? vectors.map(() => globalThis.crypto.randomUUID());
    const token = del === undefined ? undefined : globalThis.crypto.randomUUID();
    const meta = vectors.map((_, i) => {
      const m = envelope(undefined, metadata?.[i] ?? {}, undefined);
      if (token !== undefined) m[WRITE] = token;
      return m;
    });
    try {
      await c.upsert(vectorIds, vectors, meta);
      if (del !== undefined) await c.deleteWhere({ $and: [del, { [WRITE]: { $ne: token } }] });
    } catch (e) {
      throw wrap('UPSERT', e, { indexName });
    }
    return vectorIds;
  }

  /**
   * The `topK` nearest vectors, best first, with `score` a similarity (higher is more similar,
   * as Mastra's stores report it): cosine `cos(q, x)` in [−1, 1]; dotproduct `q·x`; euclidean
   * `1 / (1 + ‖q − x‖²)` in (0, 1]. A filtered query returns `min(topK, matches)` hits.
   */
  async query({ indexName, queryVector, topK = 10, filter, includeVector = false, sparseVector } = {}) {
    validateTopK(STORE, topK);
    if (sparseVector !== undefined) throw userError('QUERY', 'UNSUPPORTED', 'sparse vectors (hybrid search) are not supported');
    if (!Array.isArray(queryVector) && !ArrayBuffer.isView(queryVector)) throw userError('QUERY', 'INVALID_ARGS', 'queryVector must be an array of numbers (metadata-only queries are not supported)');
    if (!Array.prototype.every.call(queryVector, (x) => typeof x === 'number' && Number.isFinite(x))) throw userError('QUERY', 'INVALID_ARGS', 'queryVector must hold finite numbers only');
    if (typeof includeVector !== 'boolean') throw userError('QUERY', 'INVALID_ARGS', 'includeVector must be a boolean');
    const f = this.#filter('QUERY', filter);
    const c = await this.#collection('QUERY', indexName);
    try {
      const hits = await c.search(queryVector, { k: topK, ...(f === undefined ? {} : { filter: f }) });
      const metric = c.metric;
      return hits.map((h) => {
        const r = { id: String(h.id), score: similarity(metric, h.distance), metadata: h.metadata?.[META] ?? {} };
        if (includeVector) {
          const rec = c.get(h.id);
          if (rec !== undefined) r.vector = Array.from(rec.vector);
        }
        return r;
      });
    } catch (e) {
      throw wrap('QUERY', e, { indexName });
    }
  }

  /**
   * Replaces the vector and/or the metadata (the whole metadata object, as Mastra's stores do)
   * of one vector by `id` (`INDEX_NOT_FOUND`/`NOT_FOUND` USER error when absent) or of every
   * vector matching `filter`. A filter update is written in atomic batches of 1,000 records: a
   * crash midway leaves some batches updated.
   */
  async updateVector(params = {}) {
    const { indexName, id, filter, update } = params;
    if ((id === undefined) === (filter === undefined)) throw userError('UPDATE_VECTOR', 'INVALID_ARGS', 'give exactly one of id and filter');
    if (update === null || typeof update !== 'object' || (update.vector === undefined && update.metadata === undefined)) {
      throw userError('UPDATE_VECTOR', 'NO_UPDATES', 'No updates provided (update.vector and/or update.metadata)');
    }
    if (update.vector !== undefined && (!Array.isArray(update.vector) || !update.vector.every((x) => typeof x === 'number' && Number.isFinite(x)))) {
      throw userError('UPDATE_VECTOR', 'INVALID_ARGS', 'update.vector must be an array of finite numbers');
    }
    if (update.metadata !== undefined && (update.metadata === null || typeof update.metadata !== 'object' || Array.isArray(update.metadata))) {
      throw userError('UPDATE_VECTOR', 'INVALID_ARGS', 'update.metadata must be an object');
    }
    const f = filter === undefined ? undefined : this.#filter('UPDATE_VECTOR', filter);
    if (filter !== undefined && f === undefined) throw userError('UPDATE_VECTOR', 'INVALID_FILTER', 'an empty filter would update every vector');
    const c = await this.#collection('UPDATE_VECTOR', indexName);
    const apply = (env) => (update.metadata === undefined ? env : { ...env, [META]: update.metadata });
    try {
      if (id !== undefined) {
        if (typeof id !== 'string' || id === '') throw userError('UPDATE_VECTOR', 'INVALID_ARGS', 'id must be a non-empty string');
        const rec = c.get(id);
        if (rec === undefined) throw userError('UPDATE_VECTOR', 'NOT_FOUND', `no vector with id ${JSON.stringify(id)} in index ${JSON.stringify(indexName)}`, { indexName, id, code: 'HV_NOT_FOUND' });
        await c.upsert([id], [update.vector ?? rec.vector], [apply(rec.metadata ?? envelope(undefined, {}, undefined))]);
        return;
      }
      // the matching records first (a snapshot), then the writes
      const found = [];
      let cursor = null;
      do {
        const page = await c.list({ filter: f, limit: PAGE, cursor, includeVectors: update.vector === undefined });
        for (const r of page.records) found.push({ id: r.id, vector: r.vector?.slice(), metadata: r.metadata });
        cursor = page.cursor;
      } while (cursor !== null);
      for (let i = 0; i < found.length; i += PAGE) {
        const batch = found.slice(i, i + PAGE);
        await c.upsert(batch.map((r) => r.id), batch.map((r) => update.vector ?? r.vector), batch.map((r) => apply(r.metadata ?? envelope(undefined, {}, undefined))));
      }
    } catch (e) {
      throw wrap('UPDATE_VECTOR', e, { indexName });
    }
  }

  /** Deletes one vector by id (an absent id is a no-op). */
  async deleteVector({ indexName, id } = {}) {
    if (typeof id !== 'string' || id === '') throw userError('DELETE_VECTOR', 'INVALID_ARGS', 'id must be a non-empty string');
    const c = await this.#collection('DELETE_VECTOR', indexName);
    try {
      await c.delete([id]);
    } catch (e) {
      throw wrap('DELETE_VECTOR', e, { indexName, id });
    }
  }

  /** Deletes vectors by `ids` or by `filter` (exactly one; an empty filter is refused), in one atomic write. */
  async deleteVectors({ indexName, ids, filter } = {}) {
    if ((ids === undefined) === (filter === undefined)) throw userError('DELETE_VECTORS', 'INVALID_ARGS', 'give exactly one of ids and filter');
    if (ids !== undefined && (!Array.isArray(ids) || ids.length === 0 || !ids.every((x) => typeof x === 'string' && x !== ''))) {
      throw userError('DELETE_VECTORS', 'INVALID_ARGS', 'ids must be a non-empty array of non-empty strings');
    }
    const f = filter === undefined ? undefined : this.#filter('DELETE_VECTORS', filter);
    if (filter !== undefined && f === undefined) throw userError('DELETE_VECTORS', 'INVALID_FILTER', 'an empty filter would delete every vector; use deleteIndex');
    const c = await this.#collection('DELETE_VECTORS', indexName);
    try {
      if (ids !== undefined) await c.delete(ids);
      else await c.deleteWhere(f);
    } catch (e) {
      throw wrap('DELETE_VECTORS', e, { indexName });
    }
  }
}
