// The two backends under test, loaded exactly as users load them.
import * as native from 'horosvec';
import * as wasm from 'horosvec/wasm';

export type Api = typeof native;
export const backends: [string, Api][] = [
  ['native', native],
  ['wasm', wasm as unknown as Api],
];

/** Seeded PRNG (mulberry32): every random test input is reproducible from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomVectors(n: number, dim: number, seed: number): Float32Array {
  const r = rng(seed);
  const out = new Float32Array(n * dim);
  for (let i = 0; i < out.length; i++) out[i] = r() * 2 - 1;
  return out;
}

/** Reference distance in float64 (lower is closer), independent of horosvec. */
export function refDistance(metric: string, q: ArrayLike<number>, x: ArrayLike<number>): number {
  let s = 0, qq = 0, xx = 0;
  for (let i = 0; i < q.length; i++) {
    const a = q[i], b = x[i];
    if (metric === 'l2') s += (a - b) * (a - b);
    else if (metric === 'l1') s += Math.abs(a - b);
    else { s += a * b; qq += a * a; xx += b * b; }
  }
  if (metric === 'ip') return -s;
  if (metric === 'cosine') return 1 - s / Math.sqrt(qq * xx);
  return s;
}

/** Brute-force top-k row indices (ties: lower row first). */
export function refTopK(metric: string, data: Float32Array, dim: number, q: ArrayLike<number>, k: number): { row: number; d: number }[] {
  const n = data.length / dim;
  const all = [];
  for (let i = 0; i < n; i++) all.push({ row: i, d: refDistance(metric, q, data.subarray(i * dim, (i + 1) * dim)) });
  all.sort((a, b) => a.d - b.d || a.row - b.row);
  return all.slice(0, k);
}

/** Asserts that `p` (a promise or a function) fails with `code`. */
export async function expectCode(p: Promise<unknown> | (() => unknown), code: string): Promise<void> {
  let err: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    err = e;
  }
  if (!(err instanceof Error)) throw new Error(`expected an Error with code ${code}, got ${String(err)}`);
  if ((err as Error & { code?: string }).code !== code) {
    throw new Error(`expected code ${code}, got ${(err as Error & { code?: string }).code}: ${err.message}`);
  }
  // every error horosvec raises is a HorosvecError (the adapters' included; not Mastra's, which
  // wraps them in MastraError and does not come through here)
  if (!(err instanceof native.HorosvecError) || !native.isHorosvecError(err, code as native.HorosvecErrorCode)) {
    throw new Error(`expected a HorosvecError with code ${code}, got ${Object.prototype.toString.call(err)} ${err.constructor.name}: ${err.message}`);
  }
}

/** `xs` rounded to IEEE half precision (nearest, ties to even), widened back: what an f16 row stores. */
export function toHalf(xs: Float32Array): Float32Array {
  // through a Float16Array where the runtime has one, else by bit maths
  const F16 = (globalThis as { Float16Array?: new (a: Float32Array) => ArrayLike<number> }).Float16Array;
  if (F16) return Float32Array.from(new F16(xs) as ArrayLike<number>);
  return xs.map((x) => {
    if (x === 0) return x;
    const e = Math.floor(Math.log2(Math.abs(x)));
    const step = 2 ** (Math.max(e, -14) - 10);
    const q = x / step;
    const r = Math.round(q);
    const even = Math.abs(q - Math.trunc(q)) === 0.5 ? (r % 2 === 0 ? r : r - Math.sign(q)) : r;
    return even * step;
  });
}
