// Reads the shipped real sample (data/sample, see its README) with an independent reader.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../../data/sample/', import.meta.url));

function halfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

function rows(file: string, elem: 2 | 4): { n: number; dim: number; buf: Buffer } {
  const buf = readFileSync(dir + file);
  const dim = buf.readInt32LE(0);
  const row = 4 + dim * elem;
  if (buf.length % row !== 0) throw new Error(`${file}: truncated`);
  return { n: buf.length / row, dim, buf };
}

export function loadSample() {
  const b = rows('base.f16vecs', 2);
  const base = new Float32Array(b.n * b.dim);
  for (let i = 0; i < b.n; i++) {
    for (let j = 0; j < b.dim; j++) base[i * b.dim + j] = halfToFloat(b.buf.readUInt16LE(i * (4 + 2 * b.dim) + 4 + 2 * j));
  }
  function read32(file: string, int: true): { n: number; dim: number; data: Int32Array };
  function read32(file: string, int: false): { n: number; dim: number; data: Float32Array };
  function read32(file: string, int: boolean): { n: number; dim: number; data: Int32Array | Float32Array } {
    const r = rows(file, 4);
    const out = int ? new Int32Array(r.n * r.dim) : new Float32Array(r.n * r.dim);
    for (let i = 0; i < r.n; i++) {
      for (let j = 0; j < r.dim; j++) {
        const off = i * (4 + 4 * r.dim) + 4 + 4 * j;
        out[i * r.dim + j] = int ? r.buf.readInt32LE(off) : r.buf.readFloatLE(off);
      }
    }
    return { n: r.n, dim: r.dim, data: out };
  }
  const queries = read32('queries.fvecs', false);
  const gt = read32('groundtruth.ivecs', true);
  const gtDist = read32('groundtruth_dist.fvecs', false);
  const texts = (f: string) => gunzipSync(readFileSync(dir + f)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l).text as string);
  return { n: b.n, dim: b.dim, base, queries, gt, gtDist, texts };
}

/** The source of each base text (`wordnet`, `gcide`, `fortune`, `foldoc`, `jargon`): the prefix of its id. */
export function loadSources(): string[] {
  return gunzipSync(readFileSync(dir + 'texts_base.jsonl.gz')).toString('utf8').trim().split('\n')
    .map((l) => (JSON.parse(l).id as string).split(':')[0]);
}
