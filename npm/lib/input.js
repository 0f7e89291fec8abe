// Input-shape normalisation (the only logic the JS layer holds besides defaults): vectors become
// Float32Array (zero-copy when they already are one), batches become one flat `n × dim`
// row-major Float32Array, ids become an array, metadata becomes JSON text. Values are checked by
// the core, so both backends raise the same error for the same mistake.
//
// Two rules hold here, because these functions read the caller's values and so run the
// caller's code (getters, Proxy traps, toJSON):
// - They run inside `readInput` (errors.js) and raise their own errors with `inputError`; what
//   the caller's code throws becomes HV_INVALID_ARGUMENT with that exception as `cause`.
// - Bounds before work: a length is checked against `dim` and the ids count before any element
//   is read, so an array-like or Proxy claiming 2³¹ elements fails at once. Every element is
//   read once, into a copy: the backend sees only values made here, never the caller's objects
//   (a getter that answers differently the second time cannot slip past a check).

import { inputError } from './errors.js';

/**
 * At most this many ids, vectors or queries in one call. Far above any real batch (2²⁷ ids are
 * gigabytes on the JS heap and again in the core); it bounds what a lying `length` can make us
 * read when nothing else does (delete, searchBatch).
 */
const MAX_BATCH = 2 ** 27;

const isView = (v) => ArrayBuffer.isView(v) && !(v instanceof DataView);
const isBigIntView = (v) => v instanceof BigInt64Array || v instanceof BigUint64Array;
// %TypedArray%: what every typed array constructor inherits from.
const TypedArray = Object.getPrototypeOf(Int8Array);
// The length of a real typed array from its internal slot (an own `length` property could lie).
const viewLength = Object.getOwnPropertyDescriptor(TypedArray.prototype, 'length').get;

/** A copy target of `n` floats; a failed allocation is HV_OUT_OF_MEMORY, not a caller's throw. */
function floats(n) {
  try {
    return new Float32Array(n);
  } catch (e) {
    throw inputError('HV_OUT_OF_MEMORY', `cannot allocate ${n} floats for the input`, e);
  }
}

/** `v.length` when it is a usable length (read once), else HV_INVALID_ARGUMENT. */
function lengthOf(v, what) {
  return checkLength(v.length, what);
}

function checkLength(n, what) {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw inputError('HV_INVALID_ARGUMENT', `${what}.length must be a non-negative integer, got ${typeof n === 'number' ? n : typeof n}`);
  }
  return n;
}

/**
 * What vector input `v` is, without reading an element: `{ kind, length }` with kind 'f32' (a
 * Float32Array, used as is), 'typed' (another numeric typed array, copied without running caller
 * code) or 'list' (an array or array-like of numbers, read element by element).
 */
function shapeOf(v, what) {
  if (isView(v)) {
    if (v instanceof Float32Array) return { kind: 'f32', length: viewLength.call(v) };
    if (!isBigIntView(v)) return { kind: 'typed', length: viewLength.call(v) };
  } else if (v !== null && typeof v === 'object') {
    // A Proxy of a typed array (or an object inheriting from one) is not a view: its `length`
    // getter throws, so it cannot be read as an array-like either.
    if (v instanceof TypedArray) {
      throw inputError('HV_INVALID_ARGUMENT', `${what} is a Proxy of (or inherits from) a typed array, which cannot be read; pass the typed array itself`);
    }
    if (Array.isArray(v)) return { kind: 'list', length: lengthOf(v, what) };
    const n = v.length;
    if (typeof n === 'number') return { kind: 'list', length: checkLength(n, what) };
  }
  throw inputError('HV_INVALID_ARGUMENT', `${what} must be a Float32Array, another numeric typed array, or an array of numbers`);
}

/** Copies the `n` values of vector `v` (of shape `kind`) into `out` at `offset`. */
function copyInto(out, offset, v, kind, n, what) {
  if (kind !== 'list') {
    out.set(v, offset); // typed array to typed array: internal slots only, no caller code
    return;
  }
  for (let i = 0; i < n; i++) {
    const x = v[i];
    if (typeof x !== 'number') throw inputError('HV_INVALID_ARGUMENT', `${what}[${i}] is ${typeof x}, expected a number`);
    out[offset + i] = x;
  }
}

/** One vector of `dim` values → Float32Array. Accepts Float32Array (as is), any numeric typed array, number[]. */
export function toVector(v, dim, what = 'vector') {
  const { kind, length } = shapeOf(v, what);
  if (length !== dim) throw inputError('HV_DIM_MISMATCH', `${what} has ${length} components but the collection's dim is ${dim}`);
  if (kind === 'f32') return v;
  const out = floats(length);
  copyInto(out, 0, v, kind, length, what);
  return out;
}

/** `n` vectors where the call needs `count` (the ids count; undefined for queries: any number). */
function checkRows(n, count, dim, what) {
  if (count !== undefined && n !== count) {
    throw inputError('HV_INVALID_ARGUMENT', `${count} ids but ${n} vectors of dim ${dim}`);
  }
  if (n > MAX_BATCH) throw inputError('HV_INVALID_ARGUMENT', `${n} ${what} in one call; at most ${MAX_BATCH}`);
}

/**
 * A batch → flat Float32Array (`n × dim`). Accepts a flat typed array or number[] of length
 * n × dim, or an array of vectors (each Float32Array / Float64Array / number[] of length dim).
 * `count`: how many vectors the call needs (its ids count), or undefined for a query batch.
 */
export function toBatch(vectors, dim, count, what = 'vectors') {
  // No ids: nothing to read; the core rejects the empty batch with its own message.
  if (count === 0) return new Float32Array(0);
  const { kind, length } = shapeOf(vectors, what);
  if (kind === 'list' && Array.isArray(vectors) && length > 0 && typeof vectors[0] !== 'number') {
    checkRows(length, count, dim, what);
    const out = floats(length * dim);
    for (let i = 0; i < length; i++) {
      const v = vectors[i];
      const name = `${what}[${i}]`;
      const row = shapeOf(v, name);
      if (row.length !== dim) {
        throw inputError('HV_DIM_MISMATCH', `${name} has ${row.length} components but the collection's dim is ${dim}`);
      }
      copyInto(out, i * dim, v, row.kind, dim, name);
    }
    return out;
  }
  // the same code and wording as the core's check of a flat batch
  if (length % dim !== 0) {
    throw inputError('HV_DIM_MISMATCH', `a flat batch of ${length} values is not a whole number of vectors of dim ${dim}`);
  }
  checkRows(length / dim, count, dim, what);
  if (kind === 'f32') return vectors;
  const out = floats(length);
  copyInto(out, 0, vectors, kind, length, what);
  return out;
}

/** How many ids `ids` names (1 for a single id), checked before any of them is read. */
export function idsLength(ids) {
  if (!Array.isArray(ids)) return 1;
  const n = lengthOf(ids, 'ids');
  if (n > MAX_BATCH) throw inputError('HV_INVALID_ARGUMENT', `${n} ids in one call; at most ${MAX_BATCH}`);
  return n;
}

/**
 * Ids → what the backends take: a Float64Array when every id is a number (one copy, no
 * per-element conversion in the binding), else an array of our own. A single id (string or
 * number) is accepted for a one-record call. `n` is `idsLength(ids)` when the caller has it.
 */
export function toIds(ids, n = idsLength(ids)) {
  if (!Array.isArray(ids)) {
    checkId(ids, 'id');
    return typeof ids === 'number' ? Float64Array.of(ids) : [ids];
  }
  const list = [];
  let numeric = true;
  let strings = true;
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    if (typeof id === 'number') {
      strings = false;
    } else {
      numeric = false;
      checkId(id, `ids[${i}]`);
    }
    list.push(id);
  }
  if (n === 0) return list;
  if (numeric) return new Float64Array(list);
  if (strings) return packStrings(list);
  return list;
}

/** Many string ids → `{ text, lengths }`: one string and the UTF-16 length of each id. */
function packStrings(ids) {
  const lengths = new Uint32Array(ids.length);
  for (let i = 0; i < ids.length; i++) lengths[i] = ids[i].length;
  return { text: ids.join(''), lengths };
}

// A lone UTF-16 surrogate cannot be stored as UTF-8: two different ids would collapse into one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function checkId(id, what = 'id') {
  if (typeof id === 'string') {
    if (typeof id.isWellFormed === 'function' ? !id.isWellFormed() : LONE_SURROGATE.test(id)) {
      throw inputError('HV_INVALID_ARGUMENT', `${what} contains a lone UTF-16 surrogate (not a well-formed string)`);
    }
  } else if (typeof id !== 'number') {
    throw inputError('HV_INVALID_ARGUMENT', `${what} must be a string or a non-negative safe integer, got ${typeof id}`);
  }
  return id;
}

/** Metadata → array of JSON text or null; `undefined` stays undefined (no metadata). */
export function toMetadata(metadata, n, single) {
  if (metadata === undefined) return undefined;
  const list = single ? [metadata] : metadata;
  if (!Array.isArray(list)) {
    throw inputError('HV_INVALID_ARGUMENT', 'metadata must be an array with one entry per id');
  }
  const len = lengthOf(list, 'metadata');
  if (len !== n) {
    throw inputError('HV_INVALID_ARGUMENT', `${len} metadata entries for ${n} ids`);
  }
  const out = [];
  for (let i = 0; i < n; i++) {
    const m = list[i];
    if (m === undefined || m === null) {
      out.push(null);
      continue;
    }
    let text;
    try {
      text = JSON.stringify(m);
    } catch (e) {
      throw inputError('HV_INVALID_ARGUMENT', `metadata[${i}] is not JSON-serialisable: ${e?.message ?? e}`, e);
    }
    if (text === undefined) throw inputError('HV_INVALID_ARGUMENT', `metadata[${i}] is not JSON-serialisable`);
    out.push(text);
  }
  return out;
}

/** The names `search`, `searchSync` and `searchBatch` take; any other is refused. */
const SEARCH_KEYS = ['k', 'includeMetadata', 'ef', 'rerank', 'exact', 'filter', 'ids'];

/** HV_INVALID_ARGUMENT for the first own key of `opts` not in `known`. */
function refuseUnknown(opts, known, what) {
  for (const key of Object.keys(opts)) {
    if (!known.includes(key)) {
      throw inputError('HV_INVALID_ARGUMENT', `unknown ${what} option ${JSON.stringify(key)} (known: ${known.join(', ')})`);
    }
  }
}

/**
 * Search options → the raw options object `{ k, includeMetadata, ef, rerank, exact, filter, ids }`
 * (`filter` and `ids` as JSON text). Types are checked here; values (k ≥ 1, integers, the filter's
 * language) by the core. Unknown option names are refused.
 */
export function toSearchOptions(opts) {
  if (opts === undefined || opts === null || typeof opts !== 'object') {
    throw inputError('HV_INVALID_ARGUMENT', 'search options must be an object such as { k: 10 }');
  }
  refuseUnknown(opts, SEARCH_KEYS, 'search');
  const { k, includeMetadata, ef, rerank, exact, filter, ids } = opts;
  if (typeof k !== 'number') throw inputError('HV_INVALID_ARGUMENT', `k must be a positive integer, got ${typeof k}`);
  for (const [name, v] of [['ef', ef], ['rerank', rerank]]) {
    if (v !== undefined && typeof v !== 'number') {
      throw inputError('HV_INVALID_ARGUMENT', `${name} must be a positive integer, got ${typeof v}`);
    }
  }
  for (const [name, v] of [['includeMetadata', includeMetadata], ['exact', exact]]) {
    if (v !== undefined && typeof v !== 'boolean') {
      throw inputError('HV_INVALID_ARGUMENT', `${name} must be a boolean, got ${typeof v}`);
    }
  }
  const out = { k, includeMetadata: includeMetadata !== false, ef, rerank, exact };
  if (filter !== undefined) out.filter = toFilter(filter);
  if (ids !== undefined) out.ids = toIdList(ids, 'ids');
  return out;
}

/**
 * Deepest nesting of arrays and objects a filter may have here. The core's bound is lower (and
 * names the offending part); this one only keeps a cyclic or absurdly deep value from
 * exhausting the stack before the core sees it.
 */
const MAX_FILTER_NESTING = 100;

const isPlain = (v) => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};
const keyPath = (path, key) => `${path}.${key}`; // the core names parts the same way

/**
 * A filter → its JSON text. The filter language (operators, operand types, bounds) is the core's;
 * this only refuses what JSON cannot carry, which `JSON.stringify` would drop or change silently:
 * `undefined`, functions, symbols, bigints, NaN and ±Infinity, lone UTF-16 surrogates, and objects
 * other than plain objects and arrays (a Date, Map, Set, RegExp, typed array, class instance).
 * The error names the path of the offending value (`filter.year.$gt`).
 */
export function toFilter(filter, what = 'filter') {
  const seen = new Set();
  const text = (v, path, depth) => {
    switch (typeof v) {
      case 'string':
        if (!wellFormed(v)) throw inputError('HV_INVALID_ARGUMENT', `${path} contains a lone UTF-16 surrogate (not a well-formed string)`);
        return JSON.stringify(v);
      case 'number':
        if (!Number.isFinite(v)) throw inputError('HV_INVALID_ARGUMENT', `${path} is ${v}, which JSON cannot carry`);
        return JSON.stringify(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object':
        break;
      default:
        throw inputError('HV_INVALID_ARGUMENT', `${path} is ${typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`}, which JSON cannot carry`);
    }
    if (v === null) return 'null';
    if (depth >= MAX_FILTER_NESTING) throw inputError('HV_INVALID_ARGUMENT', `${path}: the filter is nested deeper than ${MAX_FILTER_NESTING} levels`);
    if (seen.has(v)) throw inputError('HV_INVALID_ARGUMENT', `${path} refers back to itself (a cycle)`);
    const array = Array.isArray(v);
    if (!array && !isPlain(v)) {
      const kind = v?.constructor?.name;
      throw inputError('HV_INVALID_ARGUMENT', `${path} is ${typeof kind === 'string' && kind ? `a ${kind}` : 'an object that is not a plain object'}; a filter holds only plain objects, arrays, strings, finite numbers, booleans and null`);
    }
    seen.add(v);
    let out;
    if (array) {
      const n = lengthOf(v, path);
      if (n > MAX_BATCH) throw inputError('HV_INVALID_ARGUMENT', `${path} has ${n} elements; at most ${MAX_BATCH}`);
      const parts = [];
      for (let i = 0; i < n; i++) parts.push(text(v[i], `${path}[${i}]`, depth + 1));
      out = `[${parts.join(',')}]`;
    } else {
      if (Object.getOwnPropertySymbols(v).length > 0) throw inputError('HV_INVALID_ARGUMENT', `${path} has a symbol key, which JSON cannot carry`);
      const parts = [];
      for (const key of Object.keys(v)) {
        const p = keyPath(path, key);
        if (!wellFormed(key)) throw inputError('HV_INVALID_ARGUMENT', `${p}: the key contains a lone UTF-16 surrogate`);
        parts.push(`${JSON.stringify(key)}:${text(v[key], p, depth + 1)}`);
      }
      out = `{${parts.join(',')}}`;
    }
    seen.delete(v);
    return out;
  };
  return text(filter, what, 0);
}

const wellFormed = (s) => (typeof s.isWellFormed === 'function' ? s.isWellFormed() : !LONE_SURROGATE.test(s));

/**
 * An allow-list of record ids → JSON array text (numbers → numeric ids, strings → string ids).
 * Each id's type is checked here; its value (a non-negative safe integer) by the core.
 */
export function toIdList(ids, what = 'ids') {
  if (!Array.isArray(ids)) throw inputError('HV_INVALID_ARGUMENT', `${what} must be an array of record ids`);
  const n = lengthOf(ids, what);
  if (n > MAX_BATCH) throw inputError('HV_INVALID_ARGUMENT', `${n} ${what} in one call; at most ${MAX_BATCH}`);
  const parts = new Array(n);
  for (let i = 0; i < n; i++) {
    const id = checkId(ids[i], `${what}[${i}]`);
    if (typeof id === 'number' && !Number.isFinite(id)) {
      throw inputError('HV_INVALID_ARGUMENT', `${what}[${i}] must be a non-negative safe integer, got ${id}`);
    }
    parts[i] = JSON.stringify(id);
  }
  return `[${parts.join(',')}]`;
}

const LIST_KEYS = ['filter', 'limit', 'cursor', 'includeVectors'];

/** `list` options → `[filterJson | undefined, limit | undefined, cursor | undefined, includeVectors]`. */
export function toListOptions(opts = {}) {
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw inputError('HV_INVALID_ARGUMENT', 'list options must be an object such as { limit: 100 }');
  }
  refuseUnknown(opts, LIST_KEYS, 'list');
  const { filter, limit, cursor, includeVectors = false } = opts;
  if (limit !== undefined && typeof limit !== 'number') throw inputError('HV_INVALID_ARGUMENT', `limit must be a positive integer, got ${typeof limit}`);
  if (cursor !== undefined && cursor !== null && typeof cursor !== 'string') {
    throw inputError('HV_INVALID_ARGUMENT', `cursor must be the string a previous list() returned (or null), got ${typeof cursor}`);
  }
  if (typeof includeVectors !== 'boolean') throw inputError('HV_INVALID_ARGUMENT', `includeVectors must be a boolean, got ${typeof includeVectors}`);
  return [filter === undefined ? undefined : toFilter(filter), limit, cursor ?? undefined, includeVectors];
}

const INDEX_KEYS = { R: 'r', r: 'r', L: 'l', l: 'l', alpha: 'alpha', passes: 'passes', bits: 'bits', seed: 'seed' };

/** Index build options → `[rawParams, onProgress, signal]`. */
export function toIndexOptions(opts = {}) {
  if (opts === null || typeof opts !== 'object') {
    throw inputError('HV_INVALID_ARGUMENT', 'buildIndex options must be an object');
  }
  const { kind = 'vamana', onProgress, signal, ...rest } = opts;
  if (kind !== 'vamana') throw inputError('HV_INVALID_ARGUMENT', `unknown index kind ${JSON.stringify(kind)} (expected "vamana")`);
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw inputError('HV_INVALID_ARGUMENT', 'onProgress must be a function');
  }
  // natively the build listens for 'abort': a look-alike without the listener methods would
  // fail there, after the check, so it is refused here on both backends
  if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean'
    || typeof signal.addEventListener !== 'function' || typeof signal.removeEventListener !== 'function')) {
    throw inputError('HV_INVALID_ARGUMENT', 'signal must be an AbortSignal');
  }
  const params = {};
  for (const [key, v] of Object.entries(rest)) {
    const name = INDEX_KEYS[key];
    if (name === undefined) throw inputError('HV_INVALID_ARGUMENT', `unknown buildIndex option "${key}"`);
    if (v === undefined) continue; // same as leaving it out: the default
    if (typeof v !== 'number') throw inputError('HV_INVALID_ARGUMENT', `${key} must be a number, got ${typeof v}`);
    params[name] = v;
  }
  return [params, onProgress, signal];
}
