#!/usr/bin/env node
// Builds data/sample/: a small, real, self-contained slice of ../shared/data/minilm384
// (all-MiniLM-L6-v2 sentence embeddings) for the default demo and for tests that must run
// without ../shared.
//
//   node scripts/make-sample.mjs [--shared ../shared/data/minilm384] [--n 20000] [--queries 500]
//                                [--out data/sample]
//
// Output (see the generated data/sample/README.md for the exact formats):
//   base.f16vecs            first N base rows, IEEE binary16, per row: int32 LE d, d × f16 LE
//   queries.fvecs           first Q query rows, float32 fvecs (held out: not in the base)
//   groundtruth.ivecs       exact top-100 base rows per query, cosine over the DECODED f16 base, float64
//   groundtruth_dist.fvecs  matching cosine distances 1 − cos (float32, ascending)
//   texts_base.jsonl.gz     first N lines of texts_base.jsonl.gz (gzip level 9)
//   texts_query.jsonl.gz    first Q lines of texts_query.jsonl.gz (gzip level 9)
//   README.md, SHA256SUMS
//
// Deterministic: no randomness, no timestamps in the outputs (Node's gzip writes mtime 0).
// Plain Node >= 20 ESM, only node:fs, node:zlib, node:path, node:crypto.

import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import crypto from 'node:crypto';

const K = 100; // ground-truth depth
const SANITY_QUERIES = 20; // independent float32 re-check
const SANITY_K = 10;
const TIE_EPS = 1e-6;

const t0 = process.hrtime.bigint();
const elapsed = () => (Number(process.hrtime.bigint() - t0) / 1e9).toFixed(2) + ' s';
const log = (...a) => console.log(`[${elapsed()}]`, ...a);
function fail(msg) {
  console.error(`make-sample: ERROR: ${msg}`);
  process.exit(1);
}
function check(cond, msg) {
  if (!cond) fail(msg);
}

// ---------------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------------
const scriptDir = import.meta.dirname ?? decodeURIComponent(new URL('.', import.meta.url).pathname);
const repoRoot = path.resolve(scriptDir, '..');

function parseArgs(argv) {
  const opts = {
    shared: path.resolve(repoRoot, '../shared/data/minilm384'),
    n: 20000,
    queries: 500,
    out: path.join(repoRoot, 'data/sample'),
  };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i];
    let v;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) {
      v = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    const val = () => {
      if (v !== undefined) return v;
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      return argv[++i];
    };
    const int = (s) => {
      if (!/^[0-9]+$/.test(s)) fail(`${a}: not a non-negative integer: ${s}`);
      return Number(s);
    };
    switch (a) {
      case '--shared': opts.shared = path.resolve(val()); break;
      case '--n': opts.n = int(val()); break;
      case '--queries': opts.queries = int(val()); break;
      case '--out': opts.out = path.resolve(val()); break;
      case '-h':
      case '--help':
        console.log('usage: node scripts/make-sample.mjs [--shared ../shared/data/minilm384] [--n 20000] [--queries 500] [--out data/sample]');
        process.exit(0);
      default: fail(`unknown argument: ${a}`);
    }
  }
  check(opts.n >= K, `--n must be >= ${K}`);
  check(opts.queries >= 1, '--queries must be >= 1');
  return opts;
}
const opts = parseArgs(process.argv.slice(2));
const N = opts.n;
const Q = opts.queries;

// ---------------------------------------------------------------------------------------------
// IEEE 754 binary32 -> binary16, round to nearest, ties to even.
// Input: the float32 bit pattern (uint32). Output: the binary16 bit pattern (uint16).
// ---------------------------------------------------------------------------------------------
function f32BitsToF16Bits(x) {
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) {
    if (mant === 0) return sign | 0x7c00; // ±inf
    return sign | 0x7e00 | (mant >>> 13); // NaN: quiet, keep the top payload bits
  }
  const e = exp - 127 + 15; // biased binary16 exponent
  if (e >= 0x1f) return sign | 0x7c00; // |x| >= 2^16: overflow to inf
  if (e >= 1) {
    // Normal binary16: keep 10 of 23 mantissa bits, round the 13 dropped bits.
    let h = sign | (e << 10) | (mant >>> 13);
    const rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++; // a carry may roll into the exponent (or inf): correct
    return h;
  }
  // Subnormal (or zero) binary16: value = m × 2^-24. With the implicit bit, full × 2^(exp-150),
  // so m = full × 2^(e-14), i.e. a right shift by 14 - e >= 14.
  // (float32 zeros and subnormals have exp = 0 -> shift 126 -> ±0.)
  const shift = 14 - e;
  if (shift > 24) return sign; // < 2^-25 (half of the smallest subnormal): rounds to ±0
  const full = mant | 0x800000;
  let m = full >>> shift;
  const rem = full & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  if (rem > half || (rem === half && (m & 1))) m++; // m may reach 0x400 = smallest normal: correct
  return sign | m;
}

// binary16 -> JS number (exact), arithmetic implementation (used for the ground truth).
function f16BitsToNumber(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

// binary16 -> binary32 bit pattern, bit-level implementation (used by the independent check).
function f16BitsToF32Bits(h) {
  const sign = (h & 0x8000) << 16;
  let e = (h >>> 10) & 0x1f;
  let m = h & 0x3ff;
  if (e === 0x1f) return (sign | 0x7f800000 | (m << 13)) >>> 0;
  if (e === 0) {
    if (m === 0) return sign >>> 0;
    e = 1;
    while ((m & 0x400) === 0) { m <<= 1; e--; }
    m &= 0x3ff;
  }
  return (sign | ((e - 15 + 127) << 23) | (m << 13)) >>> 0;
}

const f32buf = new DataView(new ArrayBuffer(4));
const bitsOfF32 = (v) => (f32buf.setFloat32(0, v, true), f32buf.getUint32(0, true));
const f32OfBits = (b) => (f32buf.setUint32(0, b >>> 0, true), f32buf.getFloat32(0, true));

// Self-test of the converters: exhaustive over all 65,536 binary16 patterns, including every
// rounding midpoint and its float32 neighbours, plus specials.
function selfTestF16() {
  let checks = 0;
  const expectEq = (got, want, what) => {
    checks++;
    if (got !== want) fail(`f16 self-test: ${what}: got 0x${got.toString(16)}, want 0x${want.toString(16)}`);
  };
  for (let h = 0; h < 0x10000; h++) {
    const e = (h >>> 10) & 0x1f;
    const v = f16BitsToNumber(h);
    const b32 = f16BitsToF32Bits(h);
    if (e === 0x1f && (h & 0x3ff)) {
      check(Number.isNaN(v) && Number.isNaN(f32OfBits(b32)), 'f16 self-test: NaN decode');
      const back = f32BitsToF16Bits(b32);
      check(((back >>> 10) & 0x1f) === 0x1f && (back & 0x3ff) !== 0, 'f16 self-test: NaN stays NaN');
      checks += 2;
      continue;
    }
    // both decoders agree, and encode(decode(h)) === h (also ±0, ±inf, subnormals)
    check(Object.is(f32OfBits(b32), v), `f16 self-test: decoders disagree at 0x${h.toString(16)}`);
    expectEq(f32BitsToF16Bits(b32), h, `round trip 0x${h.toString(16)}`);
  }
  // Midpoints between consecutive positive finite halves (and towards 65536 for the largest).
  for (let h = 0; h <= 0x7bff; h++) {
    const a = f16BitsToNumber(h);
    const b = h === 0x7bff ? 65536 : f16BitsToNumber(h + 1);
    const mid = (a + b) / 2; // exact in float32 (needs 12 significant bits)
    const mb = bitsOfF32(mid);
    check(f32OfBits(mb) === mid, 'f16 self-test: midpoint not exact in f32');
    const even = h & 1 ? h + 1 : h;
    for (const s of [0, 0x80000000]) {
      const hs = s ? 0x8000 : 0;
      expectEq(f32BitsToF16Bits((mb | s) >>> 0), even | hs, `tie at 0x${h.toString(16)}`);
      expectEq(f32BitsToF16Bits(((mb - 1) | s) >>> 0), h | hs, `below tie at 0x${h.toString(16)}`);
      expectEq(f32BitsToF16Bits(((mb + 1) | s) >>> 0), (h + 1) | hs, `above tie at 0x${h.toString(16)}`);
    }
  }
  // Specials and far-out-of-range values.
  expectEq(f32BitsToF16Bits(bitsOfF32(Infinity)), 0x7c00, '+inf');
  expectEq(f32BitsToF16Bits(bitsOfF32(-Infinity)), 0xfc00, '-inf');
  expectEq(f32BitsToF16Bits(bitsOfF32(1e10)), 0x7c00, 'overflow');
  expectEq(f32BitsToF16Bits(bitsOfF32(-3.4e38)), 0xfc00, '-overflow');
  expectEq(f32BitsToF16Bits(bitsOfF32(1e-10)), 0x0000, 'underflow');
  expectEq(f32BitsToF16Bits(0x00000001), 0x0000, 'f32 subnormal');
  expectEq(f32BitsToF16Bits(0x80000001), 0x8000, '-f32 subnormal');
  expectEq(f32BitsToF16Bits(bitsOfF32(-0)), 0x8000, '-0');
  expectEq(f32BitsToF16Bits(bitsOfF32(1)), 0x3c00, '1');
  expectEq(f32BitsToF16Bits(bitsOfF32(-1)), 0xbc00, '-1');
  expectEq(f32BitsToF16Bits(bitsOfF32(65504)), 0x7bff, 'max');
  expectEq(f32BitsToF16Bits(bitsOfF32(2 ** -24)), 0x0001, 'min subnormal');
  expectEq(f32BitsToF16Bits(bitsOfF32(2 ** -14)), 0x0400, 'min normal');
  const nan = f32BitsToF16Bits(0x7fc00000);
  check((nan & 0x7c00) === 0x7c00 && (nan & 0x3ff) !== 0, 'f16 self-test: NaN');
  const snan = f32BitsToF16Bits(0x7f800001); // payload only in the low bits: must not become inf
  check((snan & 0x7c00) === 0x7c00 && (snan & 0x3ff) !== 0, 'f16 self-test: signalling NaN');
  checks += 2;
  // Cross-check with the built-in, where the runtime has it (Node >= 24 or flags).
  let builtin = 'Math.f16round not available';
  if (typeof Math.f16round === 'function') {
    let n = 0;
    for (let i = 0; i < 1 << 20; i++) {
      const b = (Math.imul(i, 0x9e3779b1) ^ (i >>> 7)) >>> 0;
      const v = f32OfBits(b);
      if (Number.isNaN(v)) continue;
      const got = f16BitsToNumber(f32BitsToF16Bits(b));
      if (!Object.is(got, Math.f16round(v))) fail(`f16 self-test: disagrees with Math.f16round at f32 bits 0x${b.toString(16)}`);
      n++;
    }
    builtin = `agrees with Math.f16round on ${n} f32 patterns`;
  }
  return `${checks} checks passed; ${builtin}`;
}

// ---------------------------------------------------------------------------------------------
// I/O helpers
// ---------------------------------------------------------------------------------------------
function readPrefix(file, bytes) {
  const size = fs.statSync(file).size;
  check(size >= bytes, `${file}: ${size} bytes, need at least ${bytes}`);
  const buf = Buffer.alloc(bytes);
  const fd = fs.openSync(file, 'r');
  try {
    let off = 0;
    while (off < bytes) {
      const got = fs.readSync(fd, buf, off, bytes - off, off);
      check(got > 0, `${file}: short read`);
      off += got;
    }
  } finally {
    fs.closeSync(fd);
  }
  return buf;
}

// Reads the dimension from the first record of an fvecs file and checks the file shape.
function fvecsShape(file) {
  const head = readPrefix(file, 4);
  const d = head.readInt32LE(0);
  check(d > 0 && d < 1 << 20, `${file}: implausible dimension ${d}`);
  const size = fs.statSync(file).size;
  const row = 4 + 4 * d;
  check(size % row === 0, `${file}: size ${size} is not a multiple of the row size ${row}`);
  return { d, rows: size / row };
}

const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');
function sha256File(file) {
  const h = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const chunk = Buffer.alloc(1 << 22);
  try {
    for (;;) {
      const got = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (got === 0) break;
      h.update(chunk.subarray(0, got));
    }
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}

// First `count` lines (each with its '\n') of a gzipped JSONL file, byte-exact.
function jsonlPrefix(file, count) {
  const all = zlib.gunzipSync(fs.readFileSync(file));
  let pos = 0;
  for (let i = 0; i < count; i++) {
    const nl = all.indexOf(0x0a, pos);
    check(nl >= 0, `${file}: fewer than ${count} lines`);
    pos = nl + 1;
  }
  return all.subarray(0, pos);
}

function parseJsonl(buf, what) {
  const lines = buf.toString('utf8').split('\n');
  check(lines.pop() === '', `${what}: does not end with a newline`);
  return lines.map((l, i) => {
    let o;
    try {
      o = JSON.parse(l);
    } catch (e) {
      fail(`${what}: line ${i + 1} is not JSON: ${e.message}`);
    }
    check(typeof o.id === 'string' && typeof o.text === 'string', `${what}: line ${i + 1} lacks string id/text`);
    return o;
  });
}

// ---------------------------------------------------------------------------------------------
// 1. Inputs
// ---------------------------------------------------------------------------------------------
const src = {
  base: path.join(opts.shared, 'base.fvecs'),
  query: path.join(opts.shared, 'query.fvecs'),
  gt: path.join(opts.shared, 'groundtruth.ivecs'),
  textsBase: path.join(opts.shared, 'texts_base.jsonl.gz'),
  textsQuery: path.join(opts.shared, 'texts_query.jsonl.gz'),
};
for (const f of Object.values(src)) check(fs.existsSync(f), `missing input ${f} (use --shared DIR)`);

log(`f16 converter self-test: ${selfTestF16()}`);

const baseShape = fvecsShape(src.base);
const queryShape = fvecsShape(src.query);
const D = baseShape.d;
check(queryShape.d === D, `query dim ${queryShape.d} != base dim ${D}`);
check(N <= baseShape.rows, `--n ${N} > ${baseShape.rows} base rows`);
check(Q <= queryShape.rows, `--queries ${Q} > ${queryShape.rows} query rows`);
log(`source ${opts.shared}: base ${baseShape.rows} × ${D}, queries ${queryShape.rows} × ${D}; sample: ${N} base, ${Q} queries`);

const srcHashes = {
  'base.fvecs': sha256File(src.base),
  'query.fvecs': sha256File(src.query),
  'texts_base.jsonl.gz': sha256File(src.textsBase),
  'texts_query.jsonl.gz': sha256File(src.textsQuery),
};
log('source sha256 computed');

const F32_ROW = 4 + 4 * D;
const F16_ROW = 4 + 2 * D;
const baseSrc = readPrefix(src.base, N * F32_ROW);
const querySrc = readPrefix(src.query, Q * F32_ROW);
const bsv = new DataView(baseSrc.buffer, baseSrc.byteOffset, baseSrc.byteLength);
const qsv = new DataView(querySrc.buffer, querySrc.byteOffset, querySrc.byteLength);
for (let r = 0; r < N; r++) check(bsv.getInt32(r * F32_ROW, true) === D, `base row ${r}: bad dim header`);
for (let r = 0; r < Q; r++) check(qsv.getInt32(r * F32_ROW, true) === D, `query row ${r}: bad dim header`);

// ---------------------------------------------------------------------------------------------
// 2. base.f16vecs (+ decoded float64 copy for the ground truth)
// ---------------------------------------------------------------------------------------------
const baseF16 = Buffer.alloc(N * F16_ROW);
const bov = new DataView(baseF16.buffer, baseF16.byteOffset, baseF16.byteLength);
const B = new Float64Array(N * D); // decoded f16 values
const BN = new Float64Array(N); // their norms
let maxQuantErr = 0;
let quantErrSq = 0;
let maxNormDev = 0;
const decodeTable = new Float64Array(0x10000);
for (let h = 0; h < 0x10000; h++) decodeTable[h] = f16BitsToNumber(h);
for (let r = 0; r < N; r++) {
  bov.setInt32(r * F16_ROW, D, true);
  let ss = 0;
  for (let j = 0; j < D; j++) {
    const bits = bsv.getUint32(r * F32_ROW + 4 + 4 * j, true);
    const h = f32BitsToF16Bits(bits);
    bov.setUint16(r * F16_ROW + 4 + 2 * j, h, true);
    const v = decodeTable[h];
    if (!Number.isFinite(v)) fail(`base row ${r} col ${j}: not finite after f16 conversion`);
    B[r * D + j] = v;
    ss += v * v;
    const err = Math.abs(v - f32OfBits(bits));
    quantErrSq += err * err;
    if (err > maxQuantErr) maxQuantErr = err;
  }
  BN[r] = Math.sqrt(ss);
  check(BN[r] > 0, `base row ${r}: zero vector`);
  const dev = Math.abs(BN[r] - 1);
  if (dev > maxNormDev) maxNormDev = dev;
}
log(`f16 base: max |f16 - f32| ${maxQuantErr.toExponential(3)}, rms ${Math.sqrt(quantErrSq / (N * D)).toExponential(3)}, max ||x|-1| after f16 ${maxNormDev.toExponential(3)}`);

// queries.fvecs: byte-exact prefix of query.fvecs
const queriesOut = Buffer.from(querySrc);

// ---------------------------------------------------------------------------------------------
// 3. Exact ground truth: cosine in float64 over the decoded f16 base, ties -> lower row.
// ---------------------------------------------------------------------------------------------
const tGt = process.hrtime.bigint();
const gtIds = new Int32Array(Q * K);
const gtCos = new Float64Array(Q * K);
{
  const q = new Float64Array(D);
  const topS = new Float64Array(K);
  const topI = new Int32Array(K);
  check(D % 4 === 0, 'dimension must be a multiple of 4 for the unrolled loop');
  for (let qi = 0; qi < Q; qi++) {
    let qss = 0;
    for (let j = 0; j < D; j++) {
      const v = qsv.getFloat32(qi * F32_ROW + 4 + 4 * j, true);
      q[j] = v;
      qss += v * v;
    }
    const qn = Math.sqrt(qss);
    check(qn > 0, `query ${qi}: zero vector`);
    let cnt = 0;
    for (let i = 0; i < N; i++) {
      const off = i * D;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let j = 0; j < D; j += 4) {
        s0 += q[j] * B[off + j];
        s1 += q[j + 1] * B[off + j + 1];
        s2 += q[j + 2] * B[off + j + 2];
        s3 += q[j + 3] * B[off + j + 3];
      }
      const c = (s0 + s1 + s2 + s3) / (qn * BN[i]);
      if (cnt < K || c > topS[K - 1]) {
        // Sorted insertion, descending; an equal score stays after (rows come in ascending order).
        let p = cnt < K ? cnt++ : K - 1;
        while (p > 0 && topS[p - 1] < c) {
          topS[p] = topS[p - 1];
          topI[p] = topI[p - 1];
          p--;
        }
        topS[p] = c;
        topI[p] = i;
      }
    }
    gtIds.set(topI, qi * K);
    gtCos.set(topS, qi * K);
  }
}
const gtSeconds = Number(process.hrtime.bigint() - tGt) / 1e9;
log(`ground truth: ${Q} × ${N} × ${D} in ${gtSeconds.toFixed(2)} s`);

const gtOut = Buffer.alloc(Q * (4 + 4 * K));
const gdOut = Buffer.alloc(Q * (4 + 4 * K));
for (let qi = 0; qi < Q; qi++) {
  const o = qi * (4 + 4 * K);
  gtOut.writeInt32LE(K, o);
  gdOut.writeInt32LE(K, o);
  for (let k = 0; k < K; k++) {
    gtOut.writeInt32LE(gtIds[qi * K + k], o + 4 + 4 * k);
    gdOut.writeFloatLE(1 - gtCos[qi * K + k], o + 4 + 4 * k);
  }
}

// ---------------------------------------------------------------------------------------------
// 4. Texts
// ---------------------------------------------------------------------------------------------
const textsBaseRaw = jsonlPrefix(src.textsBase, N);
const textsQueryRaw = jsonlPrefix(src.textsQuery, Q);
const baseTexts = parseJsonl(textsBaseRaw, 'texts_base');
const queryTexts = parseJsonl(textsQueryRaw, 'texts_query');
check(baseTexts.length === N && queryTexts.length === Q, 'text line counts');
const gz = (b) => zlib.gzipSync(b, { level: 9 });
const textsBaseGz = gz(textsBaseRaw);
const textsQueryGz = gz(textsQueryRaw);
log('texts extracted and compressed');

// ---------------------------------------------------------------------------------------------
// 5. Write
// ---------------------------------------------------------------------------------------------
fs.mkdirSync(opts.out, { recursive: true });
const outputs = [
  ['base.f16vecs', baseF16],
  ['queries.fvecs', queriesOut],
  ['groundtruth.ivecs', gtOut],
  ['groundtruth_dist.fvecs', gdOut],
  ['texts_base.jsonl.gz', textsBaseGz],
  ['texts_query.jsonl.gz', textsQueryGz],
];
for (const [name, buf] of outputs) fs.writeFileSync(path.join(opts.out, name), buf);
log(`wrote ${outputs.length} data files to ${opts.out}`);

// ---------------------------------------------------------------------------------------------
// 6. Verify: re-read everything from disk, check shapes, then independent checks.
// ---------------------------------------------------------------------------------------------
const rd = (name) => fs.readFileSync(path.join(opts.out, name));
const vBase = rd('base.f16vecs');
const vQueries = rd('queries.fvecs');
const vGt = rd('groundtruth.ivecs');
const vGd = rd('groundtruth_dist.fvecs');

check(vBase.length === N * F16_ROW, `base.f16vecs: ${vBase.length} bytes, want ${N * F16_ROW}`);
check(vQueries.length === Q * F32_ROW, 'queries.fvecs size');
check(vGt.length === Q * (4 + 4 * K) && vGd.length === Q * (4 + 4 * K), 'ground truth sizes');
check(vQueries.equals(querySrc), 'queries.fvecs is not the byte-exact prefix of query.fvecs');

// Independent decode of the f16 base to Float32Array via the bit-level decoder.
const X = new Float32Array(N * D);
const X32 = new Uint32Array(X.buffer); // native order, only used as bits <-> value of the same array
{
  const probe = new Float32Array([1]);
  check(new Uint32Array(probe.buffer)[0] === 0x3f800000, 'unexpected float layout');
}
let maxRelErr = 0;
let tinyCount = 0; // |x| < 2^-14: stored as binary16 subnormals (or zero), absolute error <= 2^-25
for (let r = 0; r < N; r++) {
  check(vBase.readInt32LE(r * F16_ROW) === D, `base.f16vecs row ${r}: dim header`);
  for (let j = 0; j < D; j++) {
    X32[r * D + j] = f16BitsToF32Bits(vBase.readUInt16LE(r * F16_ROW + 4 + 2 * j));
    // rounding bound: |f16(x) - x| <= max(|x| 2^-11, 2^-25)
    const x = bsv.getFloat32(r * F32_ROW + 4 + 4 * j, true);
    const err = Math.abs(X[r * D + j] - x);
    if (!(err <= Math.max(Math.abs(x) * 2 ** -11, 2 ** -25))) fail(`base row ${r} col ${j}: f16 rounding error ${err} too large for ${x}`);
    if (Math.abs(x) >= 2 ** -14) maxRelErr = Math.max(maxRelErr, err / Math.abs(x)); // normal binary16 range
    else tinyCount++;
  }
}
const Y = new Float32Array(Q * D);
for (let qi = 0; qi < Q; qi++) {
  check(vQueries.readInt32LE(qi * F32_ROW) === D, `queries.fvecs row ${qi}: dim header`);
  for (let j = 0; j < D; j++) Y[qi * D + j] = vQueries.readFloatLE(qi * F32_ROW + 4 + 4 * j);
}

// (a) ground-truth files: headers, ids in range and distinct, distances ascending, and each
//     stored distance equals 1 − cos recomputed (float64, plain sequential sum) from the re-read files.
let maxDistErr = 0;
const top1 = new Float64Array(Q);
const top100 = new Float64Array(Q);
for (let qi = 0; qi < Q; qi++) {
  const o = qi * (4 + 4 * K);
  check(vGt.readInt32LE(o) === K && vGd.readInt32LE(o) === K, `ground truth row ${qi}: k header`);
  let qn = 0;
  for (let j = 0; j < D; j++) qn += Y[qi * D + j] * Y[qi * D + j];
  qn = Math.sqrt(qn);
  const seen = new Set();
  let prev = -Infinity;
  for (let k = 0; k < K; k++) {
    const id = vGt.readInt32LE(o + 4 + 4 * k);
    const dist = vGd.readFloatLE(o + 4 + 4 * k);
    check(id >= 0 && id < N && !seen.has(id), `ground truth q${qi}[${k}]: bad or repeated id ${id}`);
    seen.add(id);
    check(dist >= prev, `ground truth q${qi}: distances not ascending at ${k}`);
    prev = dist;
    let dot = 0, xn = 0;
    for (let j = 0; j < D; j++) {
      const x = X[id * D + j];
      dot += Y[qi * D + j] * x;
      xn += x * x;
    }
    const cos = dot / (qn * Math.sqrt(xn));
    maxDistErr = Math.max(maxDistErr, Math.abs(1 - cos - dist));
    if (k === 0) top1[qi] = cos;
    if (k === K - 1) top100[qi] = cos;
  }
}
check(maxDistErr < 2e-7, `stored distances differ from recomputed 1 − cos by ${maxDistErr}`);
log(`re-read base.f16vecs: rounding within bounds, max relative error ${maxRelErr.toExponential(3)} (|x| >= 2^-14), ${tinyCount} values below 2^-14`);
log(`ground-truth files consistent: max |stored dist − (1 − cos)| = ${maxDistErr.toExponential(2)}`);

// (b) independent brute force for SANITY_QUERIES queries: float32 arithmetic (Math.fround after every
//     operation), plain loop, full sort; compare its top-10 with the ground truth, tie-tolerant.
let sanityExact = 0;
let sanityTieOk = 0;
let sanityMaxCosDiff = 0;
const sanityIdx = [];
for (let s = 0; s < Math.min(SANITY_QUERIES, Q); s++) sanityIdx.push(Math.floor((s * Q) / Math.min(SANITY_QUERIES, Q)));
{
  const f = Math.fround;
  const xnorm = new Float32Array(N);
  for (let i = 0; i < N; i++) {
    let a = 0;
    for (let j = 0; j < D; j++) a = f(a + f(X[i * D + j] * X[i * D + j]));
    xnorm[i] = f(Math.sqrt(a));
  }
  const score = new Float32Array(N);
  const order = new Int32Array(N);
  for (const qi of sanityIdx) {
    let a = 0;
    for (let j = 0; j < D; j++) a = f(a + f(Y[qi * D + j] * Y[qi * D + j]));
    const qn = f(Math.sqrt(a));
    for (let i = 0; i < N; i++) {
      let dot = 0;
      for (let j = 0; j < D; j++) dot = f(dot + f(Y[qi * D + j] * X[i * D + j]));
      score[i] = f(dot / f(qn * xnorm[i]));
      order[i] = i;
    }
    order.sort((u, v) => score[v] - score[u] || u - v);
    const o = qi * (4 + 4 * K);
    const gtTop = [];
    for (let k = 0; k < SANITY_K; k++) gtTop.push(vGt.readInt32LE(o + 4 + 4 * k));
    const gtSet = new Set(gtTop);
    const cosKth = 1 - vGd.readFloatLE(o + 4 + 4 * (SANITY_K - 1)); // cosine of the k-th neighbour
    let same = true;
    let tieOk = true;
    for (let k = 0; k < SANITY_K; k++) {
      const id = order[k];
      if (id !== gtTop[k]) same = false;
      if (!gtSet.has(id)) {
        // not in the ground-truth top-10: acceptable only as a (near) tie with the 10th
        if (!(score[id] >= cosKth - TIE_EPS)) tieOk = false;
      }
      const g = gtTop[k];
      sanityMaxCosDiff = Math.max(sanityMaxCosDiff, Math.abs(score[g] - (1 - vGd.readFloatLE(o + 4 + 4 * k))));
    }
    if (same) sanityExact++;
    if (tieOk) sanityTieOk++;
    else console.error(`sanity: query ${qi}: float32 top-${SANITY_K} [${Array.from(order.subarray(0, SANITY_K))}] vs ground truth [${gtTop}]`);
  }
}
const nSan = sanityIdx.length;
check(sanityTieOk === nSan, `independent float32 check failed on ${nSan - sanityTieOk} of ${nSan} queries`);
check(sanityMaxCosDiff < 1e-5, `float32 vs float64 cosine differ by ${sanityMaxCosDiff}`);
log(`independent float32 check: ${nSan} queries, top-${SANITY_K} identical in order ${sanityExact}/${nSan}, tie-tolerant (${TIE_EPS}) agreement ${sanityTieOk}/${nSan}, max |cos32 − cos64| ${sanityMaxCosDiff.toExponential(2)}`);

// (c) texts: decompress the written files, compare with the source prefix, check counts/ids.
const vTb = zlib.gunzipSync(rd('texts_base.jsonl.gz'));
const vTq = zlib.gunzipSync(rd('texts_query.jsonl.gz'));
check(vTb.equals(textsBaseRaw) && vTq.equals(textsQueryRaw), 'texts differ from the source prefix after round trip');
check(parseJsonl(vTb, 'texts_base').length === N && parseJsonl(vTq, 'texts_query').length === Q, 'text counts');
// The source ids are not unique (GCIDE ids are headword:sense, which repeat across homograph
// entries); the line number is the key. Count them for the README, do not fail.
const dupIds = N - new Set(baseTexts.map((t) => t.id)).size;
const baseTextSet = new Set(baseTexts.map((t) => t.text.toLowerCase()));
const queryDup = queryTexts.filter((t) => baseTextSet.has(t.text.toLowerCase())).length;
check(queryDup === 0, `${queryDup} query texts also occur in the base sample`);
log(`texts: ${N} base + ${Q} query lines, byte-identical to the source prefixes, no query text in the base; ${dupIds} base lines repeat an earlier id (as in the source)`);

// (d) informational: compare with the shared float32 ground truth over all base rows. The best of
//     its top-100 ids that fall inside the first N rows is the top-1 of the sample under float32.
let cmpN = 0, cmpSame = 0;
{
  const sg = fs.readFileSync(src.gt);
  const sk = sg.readInt32LE(0);
  for (let qi = 0; qi < Q && (qi + 1) * (4 + 4 * sk) <= sg.length; qi++) {
    for (let k = 0; k < sk; k++) {
      const id = sg.readInt32LE(qi * (4 + 4 * sk) + 4 + 4 * k);
      if (id < N) {
        cmpN++;
        if (id === gtIds[qi * K]) cmpSame++;
        break;
      }
    }
  }
}
log(`vs shared float32 ground truth: top-1 identical for ${cmpSame}/${cmpN} queries whose sample top-1 is visible there`);

const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;
const median = (a) => {
  const s = Float64Array.from(a).sort();
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const stats = {
  top1Mean: mean(top1),
  top1Median: median(top1),
  top1Min: Math.min(...top1),
  top100Mean: mean(top100),
};
log(`cosine similarity: top-1 mean ${stats.top1Mean.toFixed(4)} (median ${stats.top1Median.toFixed(4)}, min ${stats.top1Min.toFixed(4)}), 100th mean ${stats.top100Mean.toFixed(4)}`);

// ---------------------------------------------------------------------------------------------
// 7. Hashes, SHA256SUMS, README.md
// ---------------------------------------------------------------------------------------------
const files = outputs.map(([name]) => {
  const buf = rd(name);
  return { name, size: buf.length, sha: sha256(buf) };
});
const total = files.reduce((s, f) => s + f.size, 0);
const sums = files.map((f) => `${f.sha}  ${f.name}\n`).join('');
fs.writeFileSync(path.join(opts.out, 'SHA256SUMS'), sums);

const fmt = (n) => n.toLocaleString('en-US');
const mb = (n) => (n / 1e6).toFixed(2) + ' MB';
const cmdArgs = [];
if (N !== 20000) cmdArgs.push(`--n ${N}`);
if (Q !== 500) cmdArgs.push(`--queries ${Q}`);
const cmd = ['node scripts/make-sample.mjs', ...cmdArgs].join(' ');

const readme = `# data/sample — small real sample of minilm384

A self-contained slice of the real \`minilm384\` dataset (\`../shared/data/minilm384\`), shipped with the
repository for the default demo and for tests that must run without \`../shared\`. Nothing here is synthetic.

* **Base:** the first ${fmt(N)} of the ${fmt(baseShape.rows)} base vectors, stored as IEEE half precision (\`base.f16vecs\`).
* **Queries:** the first ${fmt(Q)} of the ${fmt(queryShape.rows)} held-out query vectors, float32 (\`queries.fvecs\`).
  They are held out: no query text occurs in the base.
* **Ground truth:** exact top-${K} neighbours per query, cosine, over the *decoded half-precision* base.
* **Texts:** the sentence behind every vector, same order.

Generated by \`scripts/make-sample.mjs\`; this README and \`SHA256SUMS\` are written by that script.

## Provenance

* Source: \`../shared/data/minilm384\` (see \`../shared/data/README.md\`), rows 0..${N - 1} of \`base.fvecs\`
  and rows 0..${Q - 1} of \`query.fvecs\` / the matching lines of \`texts_*.jsonl.gz\`.
* Model: \`sentence-transformers/all-MiniLM-L6-v2\` (384-d, mean pooling, L2-normalised: source vectors
  have norm 1 ± 1e-6; after rounding to half precision the norms are within ${maxNormDev.toExponential(1)} of 1).
* Corpus: WordNet 3.0 glosses, GCIDE / Webster 1913, FOLDOC, Jargon File, fortunes (English texts,
  deduplicated; held-out queries drawn at random from the same shuffle).
* Source files (sha256):

\`\`\`
${Object.entries(srcHashes).map(([n, h]) => `${h}  ${n}`).join('\n')}
\`\`\`

### Licences

Copied from the Licences section of \`../shared/data/README.md\`:

WordNet 3.0: Princeton WordNet licence (use and redistribution with its copyright notice). GCIDE: GPL-3+
(Webster 1913 is public domain). FOLDOC: GFDL 1.1+. Jargon File: public domain. fortunes: BSD-style.
all-MiniLM-L6-v2: Apache-2.0. The vectors are derived data.

## Files

| file | rows × values | contents |
| --- | --- | --- |
| \`base.f16vecs\` | ${fmt(N)} × ${D} | base vectors, float16 |
| \`queries.fvecs\` | ${fmt(Q)} × ${D} | query vectors, float32 (byte-identical prefix of the source \`query.fvecs\`) |
| \`groundtruth.ivecs\` | ${fmt(Q)} × ${K} | base row numbers (0-based), best first |
| \`groundtruth_dist.fvecs\` | ${fmt(Q)} × ${K} | cosine **distance** 1 − cos of those rows, ascending |
| \`texts_base.jsonl.gz\` | ${fmt(N)} lines | \`{"id","text"}\` per line, line *i* = base row *i* |
| \`texts_query.jsonl.gz\` | ${fmt(Q)} lines | \`{"id","text"}\` per line, line *i* = query row *i* |

Base row numbers here are also row numbers in the shared \`base.fvecs\` (the sample is a prefix).
The line number, not \`id\`, identifies a text: ids come from the source and are not unique (GCIDE ids are
\`gcide:Headword:n\` and repeat across homograph entries; ${dupIds} of the ${fmt(N)} base lines repeat an earlier id).

## Formats (all little-endian, no file header, rows back to back)

* **\`.f16vecs\`** (defined by this repository): per row, an \`int32\` dimension \`d\` (= ${D}), then \`d\`
  IEEE 754 binary16 values, 2 bytes each. Row size \`4 + 2d\` = ${F16_ROW} bytes; row \`i\` starts at byte
  \`i × ${F16_ROW}\`, value \`j\` of row \`i\` at byte \`i × ${F16_ROW} + 4 + 2j\`. Values are the source float32
  rounded to nearest, ties to even: relative error ≤ 2⁻¹¹ (here max ${maxRelErr.toExponential(2)}) for |x| ≥ 2⁻¹⁴;
  the ${fmt(tinyCount)} smaller values become subnormals or zero (absolute error ≤ 2⁻²⁵). No inf or NaN.
  numpy: \`np.fromfile(p, np.uint16).reshape(-1, d + 2)[:, 2:].view(np.float16)\`.
* **\`.fvecs\`** (TEXMEX): per row, an \`int32\` dimension \`d\`, then \`d\` float32. Row size \`4 + 4d\`.
  numpy: \`np.fromfile(p, np.int32).reshape(-1, d + 1)[:, 1:].view(np.float32)\`.
* **\`.ivecs\`** (TEXMEX): per row, an \`int32\` count \`k\` (= ${K}), then \`k\` int32. Row size \`4 + 4k\` = ${4 + 4 * K} bytes.
* **\`.jsonl.gz\`**: gzip (level 9) of UTF-8 JSON lines, each ending in \`\\n\`; the uncompressed bytes are
  exactly the first lines of the source files.

## Ground truth: metric and distance convention

* Metric: **cosine similarity** \`cos = q·x / (|q| |x|)\`, computed by brute force in float64 between the
  float32 query and the **decoded float16** base vector (so an index over \`base.f16vecs\` can reach recall 1).
* \`groundtruth.ivecs\`: the ${K} rows with the largest cosine, best first; exact ties broken by lower row number.
* \`groundtruth_dist.fvecs\`: the matching cosine **distances** \`1 − cos\` as float32, ascending (lower is closer).
  **This differs from \`../shared/data\`**, whose \`groundtruth_dist.fvecs\` stores the *similarity* (larger is
  closer). Because all vectors are (nearly) unit-norm, squared L2 \`≈ 2 − 2 cos\` gives the same ranking.
* Recall@k = |returned ∩ groundtruth[:k]| / k. A tie-tolerant variant counts a returned row as correct when
  its distance is ≤ \`groundtruth_dist[q][k-1] + 1e-6\`.
* Statistics: top-1 cosine similarity mean ${stats.top1Mean.toFixed(3)} (median ${stats.top1Median.toFixed(3)},
  min ${stats.top1Min.toFixed(3)}); ${K}th mean ${stats.top100Mean.toFixed(3)}. (The full 100,000-row set has top-1 mean
  0.674: a smaller base has farther nearest neighbours.)

## Regenerating

\`\`\`
node scripts/make-sample.mjs [--shared ../shared/data/minilm384] [--n 20000] [--queries 500]
\`\`\`

This sample was made with \`${cmd}\` (Node ≥ 20, no dependencies). The script is deterministic.
It self-tests its float16 conversion (all 65,536 values, every rounding midpoint), re-reads what it wrote, checks every
stored distance against a recomputation, re-checks the top-${SANITY_K} of ${nSan} queries with an independent float32
brute force (tie-tolerant to 1e-6), and writes \`SHA256SUMS\`. Check with \`cd data/sample && sha256sum -c SHA256SUMS\`.
The \`.gz\` hashes can differ with another zlib build; their uncompressed content cannot.

## Sizes and SHA-256

| file | bytes | sha256 |
| --- | ---: | --- |
${files.map((f) => `| \`${f.name}\` | ${fmt(f.size)} | \`${f.sha}\` |`).join('\n')}
| **total** | **${fmt(total)}** (${mb(total)}) | |

Uncompressed texts: \`texts_base.jsonl\` ${fmt(textsBaseRaw.length)} bytes, sha256 \`${sha256(textsBaseRaw)}\`;
\`texts_query.jsonl\` ${fmt(textsQueryRaw.length)} bytes, sha256 \`${sha256(textsQueryRaw)}\`.
`;
fs.writeFileSync(path.join(opts.out, 'README.md'), readme);

console.log('\nfiles:');
for (const f of files) console.log(`  ${f.sha}  ${String(f.size).padStart(10)}  ${f.name}`);
console.log(`  total ${fmt(total)} bytes (${mb(total)}); also wrote README.md and SHA256SUMS`);
check(total < 20e6, `total size ${total} exceeds 20 MB`);
log('done');
