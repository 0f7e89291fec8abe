// What the three framework adapters (langchain.js, llamaindex.js, mastra.js) share: the record
// envelope they store, filter paths under it, the score a framework expects from a horosvec
// distance, and maximal marginal relevance. No framework is imported here.

import { Collection } from 'horosvec';
import { HorosvecError, hvError, toHvError } from '../lib/errors.js';

/**
 * The envelope an adapter stores as a record's horosvec metadata: `{ text, meta, doc }`, where
 * `meta` is the framework's own metadata object (what its filters address), `text` the chunk's
 * content and `doc` the id of the source document it came from (LlamaIndex's `ref_doc_id`;
 * LangChain has none). Keeping the framework's metadata one level down means its keys can never
 * collide with the adapter's.
 */
export const META = 'meta';

/**
 * The record metadata for one chunk; `undefined` fields are left out.
 * @param {string | undefined} text
 * @param {object | undefined} meta
 * @param {string | undefined} doc
 */
export function envelope(text, meta, doc) {
  const out = {};
  if (text !== undefined) out.text = text;
  out[META] = meta ?? {};
  if (doc !== undefined) out.doc = doc;
  return out;
}


/**
 * A file-system failure of an adapter's save/persist as `HV_IO` naming `path` (the system error
 * as `cause`); a HorosvecError passes through, anything else becomes one (toHvError).
 */
export function ioError(adapter, e, path) {
  if (e instanceof HorosvecError) return e;
  if (e && typeof e.code === 'string' && typeof e.syscall === 'string') return hvError('HV_IO', `${adapter}: ${path}: ${e.message}`, e);
  return toHvError(e);
}

/** An `HV_INVALID_ARGUMENT` error whose message starts with the adapter's name. */
export function argError(adapter, message) {
  return hvError('HV_INVALID_ARGUMENT', `${adapter}: ${message}`);
}

/**
 * A horosvec filter over the framework's metadata rewritten to address the envelope: every
 * field path `p` becomes `meta.p`; `$and`, `$or` and `$not` keep their shape. Values are left
 * as they are (the core checks them and names the bad part).
 */
export function underMeta(filter) {
  if (filter === undefined || filter === null) return undefined;
  if (typeof filter !== 'object' || Array.isArray(filter)) return filter; // the core refuses it
  const out = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') out[key] = Array.isArray(value) ? value.map(underMeta) : value;
    else if (key === '$not') out[key] = underMeta(value);
    else if (key.startsWith('$')) out[key] = value; // an unknown operator: the core names it
    else out[`${META}.${key}`] = value;
  }
  return out;
}

/**
 * A similarity, higher is more similar, from a horosvec distance (lower is closer):
 * - `cosine`: cos(q, x) = 1 − distance, in [−1, 1];
 * - `ip`: the inner product q·x = −distance;
 * - `l2`: 1 / (1 + ‖q − x‖²), in (0, 1];
 * - `l1`: 1 / (1 + Σ|qᵢ − xᵢ|), in (0, 1].
 * @param {'l2' | 'cosine' | 'ip' | 'l1'} metric
 * @param {number} distance
 */
export function similarity(metric, distance) {
  switch (metric) {
    case 'cosine':
      return 1 - distance;
    case 'ip':
      return -distance;
    default:
      return 1 / (1 + distance);
  }
}

function cosine(a, b) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  const d = Math.sqrt(na) * Math.sqrt(nb);
  return d === 0 ? 0 : dot / d;
}

/**
 * Maximal marginal relevance (Carbonell & Goldstein, SIGIR 1998): picks `k` of `candidates`
 * (vectors, best first) one at a time, each maximising
 * `λ·cos(query, c) − (1 − λ)·max cos(c, picked)`. `lambda` 1 is pure relevance, 0 pure
 * diversity. Returns the picked candidates' indices, in pick order.
 * @param {ArrayLike<number>} query
 * @param {ArrayLike<number>[]} candidates
 * @param {number} k
 * @param {number} lambda
 */
export function mmr(query, candidates, k, lambda) {
  const n = candidates.length;
  const relevance = candidates.map((c) => cosine(query, c));
  // the largest similarity of each candidate to any pick so far
  const redundancy = new Float64Array(n).fill(-Infinity);
  const picked = [];
  const taken = new Uint8Array(n);
  while (picked.length < Math.min(k, n)) {
    let best = -1;
    let bestScore = -Infinity;
    for (let i = 0; i < n; i++) {
      if (taken[i]) continue;
      const penalty = picked.length === 0 ? 0 : redundancy[i];
      const score = lambda * relevance[i] - (1 - lambda) * penalty;
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    }
    taken[best] = 1;
    picked.push(best);
    for (let i = 0; i < n; i++) {
      if (!taken[i]) redundancy[i] = Math.max(redundancy[i], cosine(candidates[i], candidates[best]));
    }
  }
  return picked;
}

/** The horosvec `Collection` class the adapters build on (the package's own entry). */
export { Collection };
