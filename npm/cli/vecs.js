// Readers for the TEXMEX-style vector files used by the benchmarks and the demo:
//   .fvecs   per row: int32 d, then d float32
//   .ivecs   per row: int32 d, then d int32
//   .f16vecs per row: int32 d, then d IEEE 754 binary16 (decoded to float32)
//   .bvecs   per row: int32 d, then d uint8
// All little-endian, no file header, rows back to back. `readVecs(path)` returns
// `{ n, dim, data }` with `data` one flat row-major typed array (Float32Array for fvecs and
// f16vecs, Int32Array for ivecs, Uint8Array for bvecs).
//
// Errors carry a stable `code`: `HV_IO` (missing / unreadable file), `HV_CORRUPT` (size not a whole
// number of rows, a row whose dimension header differs from the first, a bad header),
// `HV_INVALID_ARGUMENT` (unknown extension).

import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { hvError } from '../lib/errors.js';

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const MAX_DIM = 1 << 20;

function vecsError(code, message, cause) {
  return hvError(code, message, cause);
}

// ---- binary16 → float32 ---------------------------------------------------------------------

let HALF_TABLE = null;

/** Exact value of one IEEE 754 binary16 bit pattern (normals, subnormals, ±0, ±Inf, NaN). */
export function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24; // zero and subnormals: mant × 2⁻¹⁴ × 2⁻¹⁰
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1024 + mant) * 2 ** (exp - 25); // (1 + mant/1024) × 2^(exp−15)
}

/** All 65,536 half values as float32 (every one is exactly representable), built once. */
function halfTable() {
  if (HALF_TABLE === null) {
    HALF_TABLE = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) HALF_TABLE[h] = halfToFloat(h);
  }
  return HALF_TABLE;
}

// ---- formats --------------------------------------------------------------------------------

const FORMATS = {
  fvecs: { width: 4, make: (len) => new Float32Array(len) },
  ivecs: { width: 4, make: (len) => new Int32Array(len) },
  f16vecs: { width: 2, make: (len) => new Float32Array(len) },
  bvecs: { width: 1, make: (len) => new Uint8Array(len) },
};

/** The format of a path from its extension, or null. */
export function vecsFormat(path) {
  const m = /\.(fvecs|ivecs|f16vecs|bvecs)$/i.exec(String(path));
  return m ? m[1].toLowerCase() : null;
}

/**
 * Reads a whole `.fvecs` / `.ivecs` / `.f16vecs` / `.bvecs` file.
 * @param {string} path
 * @returns {{ n: number, dim: number, data: Float32Array | Int32Array | Uint8Array }}
 */
export function readVecs(path) {
  const format = vecsFormat(path);
  if (format === null) {
    throw vecsError('HV_INVALID_ARGUMENT', `${path}: unknown vector file type (expected .fvecs, .ivecs, .f16vecs or .bvecs)`);
  }
  let buf;
  try {
    buf = readFileSync(path);
  } catch (e) {
    const why = e && e.code === 'ENOENT' ? 'no such file' : e && e.code === 'EISDIR' ? 'is a directory' : String(e && e.message);
    throw vecsError('HV_IO', `cannot read ${path}: ${why}`, e);
  }
  return parseVecs(buf, format, path);
}

/**
 * Parses the bytes of a vector file (`format` one of fvecs, ivecs, f16vecs, bvecs). `name` is used
 * in error messages.
 */
export function parseVecs(buf, format, name = format) {
  const fmt = FORMATS[format];
  if (fmt === undefined) throw vecsError('HV_INVALID_ARGUMENT', `unknown vector format ${format}`);
  const file = String(name);
  const size = buf.byteLength;
  if (size === 0) throw vecsError('HV_CORRUPT', `${file}: empty file (no rows)`);
  if (size < 4) throw vecsError('HV_CORRUPT', `${file}: ${size} bytes, too short for a row header`);

  const dv = new DataView(buf.buffer, buf.byteOffset, size);
  const dim = dv.getInt32(0, true);
  if (dim <= 0 || dim > MAX_DIM) {
    throw vecsError('HV_CORRUPT', `${file}: row 0 has dimension header ${dim} (expected 1..${MAX_DIM}); is this a ${format} file?`);
  }
  const rowBytes = 4 + dim * fmt.width;
  if (size % rowBytes !== 0) {
    throw vecsError(
      'HV_CORRUPT',
      `${file}: ${size} bytes is not a whole number of rows of ${rowBytes} bytes (dim ${dim}): ` +
        `${Math.floor(size / rowBytes)} rows and ${size % rowBytes} bytes left over (truncated file?)`,
    );
  }
  const n = size / rowBytes;
  for (let i = 0, off = 0; i < n; i++, off += rowBytes) {
    const d = dv.getInt32(off, true);
    if (d !== dim) throw vecsError('HV_CORRUPT', `${file}: row ${i} has dimension header ${d}, but row 0 has ${dim}`);
  }

  const out = fmt.make(n * dim);
  if (LITTLE_ENDIAN_HOST && format !== 'f16vecs') {
    // Byte copy of each row's payload into the (aligned) output: no per-row allocation, and the
    // source alignment does not matter.
    const src = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, size);
    const dst = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    const payload = rowBytes - 4;
    for (let i = 0, off = 0, o = 0; i < n; i++, off += rowBytes, o += payload) src.copy(dst, o, off + 4, off + rowBytes);
  } else if (LITTLE_ENDIAN_HOST) {
    // f16vecs: one Uint16Array view over the file (copied first if its offset is odd), decoded
    // through a 65,536-entry table.
    let bytes = buf;
    if (bytes.byteOffset % 2 !== 0) bytes = new Uint8Array(bytes);
    const src = new Uint16Array(bytes.buffer, bytes.byteOffset, size / 2);
    const table = halfTable();
    const stride = rowBytes / 2;
    for (let i = 0, s = 2, o = 0; i < n; i++, s += stride) {
      for (let j = 0; j < dim; j++) out[o++] = table[src[s + j]];
    }
  } else {
    // Big-endian host: element by element through the DataView.
    const table = format === 'f16vecs' ? halfTable() : null;
    for (let i = 0, off = 4, o = 0; i < n; i++, off += rowBytes) {
      for (let j = 0; j < dim; j++, o++) {
        if (format === 'fvecs') out[o] = dv.getFloat32(off + 4 * j, true);
        else if (format === 'ivecs') out[o] = dv.getInt32(off + 4 * j, true);
        else if (format === 'f16vecs') out[o] = table[dv.getUint16(off + 2 * j, true)];
        else out[o] = dv.getUint8(off + j);
      }
    }
  }
  return { n, dim, data: out };
}
