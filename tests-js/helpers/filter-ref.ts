// An independent reference of the filter language (written from the documented semantics, not
// from the core), a seeded generator of random metadata and random filters, and a brute-force
// filtered top-k. Used by tests-js/filter.test.ts and tests-js/filter-durable.test.ts.
import { refDistance, rng } from './backends.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Scalar = null | boolean | number | string;
type Leaf = { path: string; value: Scalar | undefined; element: boolean };

const isObj = (v: unknown): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isScalar = (v: unknown): v is Scalar => v === null || ['boolean', 'number', 'string'].includes(typeof v);

/** The (path, value) leaves of one record's metadata: none when absent or not an object. */
export function leaves(meta: unknown): Leaf[] {
  const out: Leaf[] = [];
  const field = (path: string, v: Json) => {
    if (isObj(v)) {
      out.push({ path, value: undefined, element: false });
      for (const [k, c] of Object.entries(v)) field(`${path}.${k}`, c);
    } else if (Array.isArray(v)) {
      out.push({ path, value: undefined, element: false });
      for (const item of v) {
        if (isObj(item)) for (const [k, c] of Object.entries(item)) field(`${path}.${k}`, c);
        else if (Array.isArray(item)) for (const s of item) { if (isScalar(s)) out.push({ path, value: s, element: true }); }
        else out.push({ path, value: item, element: true });
      }
    } else {
      out.push({ path, value: v, element: false });
    }
  };
  if (isObj(meta)) for (const [k, c] of Object.entries(meta)) field(k, c);
  return out;
}

const sameType = (a: Scalar, b: Scalar) => (a === null ? b === null : b !== null && typeof a === typeof b);
const eq = (a: Scalar | undefined, b: Scalar) => a !== undefined && sameType(a, b) && a === b;
// code point order: the generator's strings are ASCII, where UTF-16 order is the same
const cmp = (a: Scalar | undefined, b: Scalar, op: string) => {
  if (a === undefined || !sameType(a, b) || (typeof a !== 'number' && typeof a !== 'string')) return false;
  const x = a as number | string, y = b as number | string;
  return op === '$gt' ? x > y : op === '$gte' ? x >= y : op === '$lt' ? x < y : x <= y;
};

function fieldOps(path: string, ops: Record<string, unknown>, ls: Leaf[]): boolean {
  const at = ls.filter((l) => l.path === path);
  return Object.entries(ops).every(([op, v]) => {
    switch (op) {
      case '$eq': return at.some((l) => eq(l.value, v as Scalar));
      case '$ne': return !at.some((l) => eq(l.value, v as Scalar));
      case '$gt': case '$gte': case '$lt': case '$lte': return at.some((l) => cmp(l.value, v as Scalar, op));
      case '$in': return at.some((l) => (v as Scalar[]).some((s) => eq(l.value, s)));
      case '$nin': return !at.some((l) => (v as Scalar[]).some((s) => eq(l.value, s)));
      case '$exists': return (at.length > 0) === v;
      case '$contains': return at.some((l) => (l.element ? eq(l.value, v as Scalar)
        : typeof l.value === 'string' && typeof v === 'string' && l.value.includes(v)));
      case '$not': return !fieldOps(path, v as Record<string, unknown>, ls);
      default: throw new Error(`reference: unknown operator ${op}`);
    }
  });
}

function field(path: string, cond: unknown, ls: Leaf[]): boolean {
  if (isObj(cond)) {
    const keys = Object.keys(cond);
    if (keys.every((k) => k.startsWith('$'))) return fieldOps(path, cond, ls);
    return keys.every((k) => field(`${path}.${k}`, cond[k], ls));
  }
  return ls.some((l) => l.path === path && eq(l.value, cond as Scalar));
}

function evalFilter(f: Record<string, unknown>, ls: Leaf[]): boolean {
  return Object.entries(f).every(([k, v]) => {
    if (k === '$and') return (v as Record<string, unknown>[]).every((g) => evalFilter(g, ls));
    if (k === '$or') return (v as Record<string, unknown>[]).some((g) => evalFilter(g, ls));
    if (k === '$not') return !evalFilter(v as Record<string, unknown>, ls);
    return field(k, v, ls);
  });
}

/** Whether a record with metadata `meta` (a JS value, undefined for none) matches filter `f`. */
export function matches(f: object, meta: unknown): boolean {
  return evalFilter(f as Record<string, unknown>, leaves(meta));
}

export interface Rec { id: number | string; vector: Float32Array; meta: unknown }

/** Brute-force filtered top-k over `records` (in insertion order): ids and reference distances. */
export function bruteTopK(metric: string, records: Rec[], q: ArrayLike<number>, k: number, f?: object, allow?: Set<unknown>) {
  const all: { id: Rec['id']; d: number; seq: number }[] = [];
  records.forEach((r, seq) => {
    if (f && !matches(f, r.meta)) return;
    if (allow && !allow.has(r.id)) return;
    all.push({ id: r.id, d: refDistance(metric, q, r.vector), seq });
  });
  all.sort((a, b) => a.d - b.d || a.seq - b.seq);
  return all.slice(0, k);
}

const POOL: Scalar[] = ['a', 'b', 'c', 'red', 'blue', 'n3', 'x', '', 0, 1, 2, 3, 7, 50, 99, -1, 0.5, true, false, null];
const PATHS = ['cat', 'n', 'f', 'tags', 'flag', 'u.id', 'u.name', 'title', 'missing'];

/** Seeded random metadata mixing types, arrays, nesting, absent fields and absent metadata. */
export function randomMeta(r: () => number): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const roll = r();
  if (roll < 0.04) return undefined;
  if (roll < 0.06) return pick([[1, 2], 'text', 5, null]);
  const m: Record<string, Json> = {};
  if (r() < 0.9) m.cat = r() < 0.93 ? pick(['a', 'b', 'c', 'd', 'e']) : pick([1, true, null]);
  if (r() < 0.85) m.n = r() < 0.92 ? Math.floor(r() * 100) : pick(['50', 'x', null]);
  if (r() < 0.7) m.f = Math.round(r() * 1000) / 100 - 2;
  if (r() < 0.75) {
    m.tags = r() < 0.85
      ? Array.from({ length: Math.floor(r() * 4) }, () => pick(['red', 'green', 'blue', 1, 2, null]))
      : pick(['red-green', 'blue']);
  }
  if (r() < 0.6) m.flag = pick([true, false, null]);
  if (r() < 0.6) m.u = r() < 0.9 ? { id: Math.floor(r() * 10), name: `n${Math.floor(r() * 5)}` } : pick([[{ id: 3 }, { id: 4 }], 3]);
  if (r() < 0.5) m.title = pick(['the red fox', 'a blue sky', 'x', 'Red', 'n3 n3']);
  return m;
}

// Operands per path (mostly values the records hold, so that selectivities spread from none to
// all), and ordered bounds for the comparisons.
const VALUES: Record<string, Scalar[]> = {
  cat: ['a', 'b', 'c', 'd', 'e', 1, true, null],
  n: [0, 3, 7, 12, 50, 99, '50', 'x', null],
  f: [-2, 0, 0.5, 3],
  tags: ['red', 'green', 'blue', 1, 2, null, 'red-green'],
  flag: [true, false, null],
  'u.id': [0, 3, 5, 9, '3'],
  'u.name': ['n0', 'n1', 'n3', 'x'],
  title: ['the red fox', 'x', 'Red', 'n3 n3'],
  missing: ['x', 1, null],
};
const ORDERED: Record<string, (number | string)[]> = {
  n: [0, 10, 25, 50, 75, 99, 100, 'a'],
  f: [-1, 0, 2, 5, 8],
  'u.id': [0, 2, 5, 9],
  cat: ['a', 'b', 'c', 'e', 0],
  'u.name': ['n1', 'n3', 'n'],
  title: ['a', 'the', 'x'],
  tags: ['blue', 'green', 1],
};

/** A seeded random filter over the paths of `randomMeta`, up to `depth` levels of logic. */
export function randomFilter(r: () => number, depth = 3): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const condition = (path: string): unknown => {
    const value = (): Scalar => (r() < 0.85 ? pick(VALUES[path]) : pick(POOL));
    const some = () => Array.from({ length: 1 + Math.floor(r() * 3) }, value);
    const ordered = () => pick(ORDERED[path] ?? [0, 'a', 50]);
    switch (Math.floor(r() * 12)) {
      case 0: return value();
      case 1: return { $eq: value() };
      case 2: return { $ne: value() };
      case 3: return { [pick(['$gt', '$gte', '$lt', '$lte'])]: ordered() };
      case 4: return { $gte: ordered(), $lt: ordered() };
      case 5: return { $in: some() };
      case 6: return { $nin: some() };
      case 7: return { $exists: r() < 0.5 };
      case 8: return { $contains: pick(['red', 'e', 'blue', 1, 'n3', null, 'x', 'fox']) };
      case 9: return { $not: { [pick(['$gt', '$lte'])]: ordered() } };
      case 10: return { $in: r() < 0.5 ? [] : [value(), value(), value(), value()] };
      default: return { $ne: value(), $exists: true };
    }
  };
  const leaf = (): Record<string, unknown> => {
    const path = pick(PATHS);
    // the nested form of a dotted path, now and then
    if (path.startsWith('u.') && r() < 0.3) return { u: { [path.slice(2)]: condition(path) } };
    return { [path]: condition(path) };
  };
  if (depth === 0 || r() < 0.45) {
    const f = leaf();
    if (r() < 0.25) Object.assign(f, leaf()); // two fields (the same one twice: the last wins in JS)
    return f;
  }
  const sub = () => Array.from({ length: 1 + Math.floor(r() * 3) }, () => randomFilter(r, depth - 1));
  switch (Math.floor(r() * 4)) {
    case 0: return { $and: sub() };
    case 1: return { $or: sub() };
    case 2: return { $not: randomFilter(r, depth - 1) };
    default: return { ...leaf(), $or: sub() };
  }
}

export { rng };
