// Input-shape normalisation (the only logic the JS layer holds besides defaults): vectors become
// Float32Array (zero-copy when they already are one), batches become one flat `n × dim`
// row-major Float32Array, ids become an array, metadata becomes JSON text. Values are checked by
// the core, so both backends raise the same error for the same mistake.

import { hvError } from './errors.js';

const isView = (v) => ArrayBuffer.isView(v) && !(v instanceof DataView);

/** One vector → Float32Array. Accepts Float32Array (as is), any numeric typed array, number[]. */
export function toVector(v, what = 'vector') {
  if (v instanceof Float32Array) return v;
  if (isView(v) && !(v instanceof BigInt64Array) && !(v instanceof BigUint64Array)) return Float32Array.from(v);
  if (Array.isArray(v) || (v !== null && typeof v === 'object' && typeof v.length === 'number' && !isView(v))) {
    for (let i = 0; i < v.length; i++) {
      if (typeof v[i] !== 'number') {
        throw hvError('HV_INVALID_ARGUMENT', `${what}[${i}] is ${typeof v[i]}, expected a number`);
      }
    }
    return Float32Array.from(v);
  }
  throw hvError('HV_INVALID_ARGUMENT', `${what} must be a Float32Array, another numeric typed array, or an array of numbers`);
}

/**
 * A batch → flat Float32Array (`n × dim`). Accepts a flat typed array or number[] of length
 * n × dim, or an array of vectors (each Float32Array / Float64Array / number[] of length dim).
 */
export function toBatch(vectors, dim, what = 'vectors') {
  if (Array.isArray(vectors) && vectors.length > 0 && typeof vectors[0] !== 'number') {
    const out = new Float32Array(vectors.length * dim);
    for (let i = 0; i < vectors.length; i++) {
      const v = toVector(vectors[i], `${what}[${i}]`);
      if (v.length !== dim) {
        throw hvError('HV_DIM_MISMATCH', `${what}[${i}] has ${v.length} components but the collection's dim is ${dim}`);
      }
      out.set(v, i * dim);
    }
    return out;
  }
  return toVector(vectors, what);
}

/**
 * Ids → what the backends take: a Float64Array when every id is a number (one copy, no
 * per-element conversion in the binding), else the array itself. A single id (string or
 * number) is accepted for a one-record call.
 */
export function toIds(ids) {
  if (!Array.isArray(ids)) {
    checkId(ids, 'id');
    return typeof ids === 'number' ? Float64Array.of(ids) : [ids];
  }
  let numeric = true;
  for (let i = 0; i < ids.length; i++) {
    const t = typeof ids[i];
    if (t !== 'number') {
      numeric = false;
      checkId(ids[i], `ids[${i}]`);
    }
  }
  if (ids.length === 0) return ids;
  if (numeric) return Float64Array.from(ids);
  if (ids.every((id) => typeof id === 'string')) return packStrings(ids);
  return ids;
}

/** Many string ids → `{ text, lengths }`: one string and the UTF-16 length of each id. */
function packStrings(ids) {
  const lengths = new Uint32Array(ids.length);
  for (let i = 0; i < ids.length; i++) lengths[i] = ids[i].length;
  return { text: ids.join(''), lengths, count: ids.length };
}

/** Number of ids in what `toIds` returned. */
export function idCount(ids) {
  return ids.count ?? ids.length;
}

// A lone UTF-16 surrogate cannot be stored as UTF-8: two different ids would collapse into one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function checkId(id, what = 'id') {
  if (typeof id === 'string') {
    if (typeof id.isWellFormed === 'function' ? !id.isWellFormed() : LONE_SURROGATE.test(id)) {
      throw hvError('HV_INVALID_ARGUMENT', `${what} contains a lone UTF-16 surrogate (not a well-formed string)`);
    }
  } else if (typeof id !== 'number') {
    throw hvError('HV_INVALID_ARGUMENT', `${what} must be a string or a non-negative safe integer, got ${typeof id}`);
  }
  return id;
}

/** Metadata → array of JSON text or null; `undefined` stays undefined (no metadata). */
export function toMetadata(metadata, n, single) {
  if (metadata === undefined) return undefined;
  const list = single ? [metadata] : metadata;
  if (!Array.isArray(list)) {
    throw hvError('HV_INVALID_ARGUMENT', 'metadata must be an array with one entry per id');
  }
  if (list.length !== n) {
    throw hvError('HV_INVALID_ARGUMENT', `${list.length} metadata entries for ${n} ids`);
  }
  return list.map((m, i) => {
    if (m === undefined || m === null) return null;
    let text;
    try {
      text = JSON.stringify(m);
    } catch (e) {
      throw hvError('HV_INVALID_ARGUMENT', `metadata[${i}] is not JSON-serialisable: ${e.message}`, e);
    }
    if (text === undefined) throw hvError('HV_INVALID_ARGUMENT', `metadata[${i}] is not JSON-serialisable`);
    return text;
  });
}

/**
 * Search options → the raw options object `{ k, includeMetadata, ef, rerank, exact }`. Types are
 * checked here; values (k ≥ 1, integers) by the core.
 */
export function toSearchOptions(opts) {
  if (opts === undefined || opts === null || typeof opts !== 'object') {
    throw hvError('HV_INVALID_ARGUMENT', 'search options must be an object such as { k: 10 }');
  }
  const { k, includeMetadata, ef, rerank, exact } = opts;
  if (typeof k !== 'number') throw hvError('HV_INVALID_ARGUMENT', `k must be a positive integer, got ${typeof k}`);
  for (const [name, v] of [['ef', ef], ['rerank', rerank]]) {
    if (v !== undefined && typeof v !== 'number') {
      throw hvError('HV_INVALID_ARGUMENT', `${name} must be a positive integer, got ${typeof v}`);
    }
  }
  for (const [name, v] of [['includeMetadata', includeMetadata], ['exact', exact]]) {
    if (v !== undefined && typeof v !== 'boolean') {
      throw hvError('HV_INVALID_ARGUMENT', `${name} must be a boolean, got ${typeof v}`);
    }
  }
  return { k, includeMetadata: includeMetadata !== false, ef, rerank, exact };
}

const INDEX_KEYS = { R: 'r', r: 'r', L: 'l', l: 'l', alpha: 'alpha', passes: 'passes', bits: 'bits', seed: 'seed' };

/** Index build options → `[rawParams, onProgress, signal]`. */
export function toIndexOptions(opts = {}) {
  if (opts === null || typeof opts !== 'object') {
    throw hvError('HV_INVALID_ARGUMENT', 'buildIndex options must be an object');
  }
  const { kind = 'vamana', onProgress, signal, ...rest } = opts;
  if (kind !== 'vamana') throw hvError('HV_INVALID_ARGUMENT', `unknown index kind ${JSON.stringify(kind)} (expected "vamana")`);
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw hvError('HV_INVALID_ARGUMENT', 'onProgress must be a function');
  }
  if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean')) {
    throw hvError('HV_INVALID_ARGUMENT', 'signal must be an AbortSignal');
  }
  const params = {};
  for (const [key, v] of Object.entries(rest)) {
    const name = INDEX_KEYS[key];
    if (name === undefined) throw hvError('HV_INVALID_ARGUMENT', `unknown buildIndex option "${key}"`);
    if (v === undefined) continue; // same as leaving it out: the default
    if (typeof v !== 'number') throw hvError('HV_INVALID_ARGUMENT', `${key} must be a number, got ${typeof v}`);
    params[name] = v;
  }
  return [params, onProgress, signal];
}
