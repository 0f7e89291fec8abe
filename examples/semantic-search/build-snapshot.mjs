// Builds the page's index in Node from the shipped sample (data/sample): an exact (brute-force)
// cosine collection of the 20,000 all-MiniLM-L6-v2 vectors, each record's metadata
// { text, source }, saved with toBytes() to public/sample.hvsnap, which the page loads with
// Collection.fromBytes (no rebuild in the browser). Exact search: at 20,000 × 384 a scan is a few
// ms and its results are the ground truth, so the page and the Node side agree exactly.
// Rows stored as f16 (`vectors: 'f16'`): the sample's vectors are half precision already
// (base.f16vecs), so nothing is lost, and the snapshot is 21.7 MB instead of 37.0 MB. Measured
// with bench/page-open.mjs (8 first visits each, interleaved, load average 13-15): median CPU
// per page open until the first result 3.9 s against 4.4 s with f32 rows, page open → first
// result 4.0 s against 4.9 s.
// Idempotent: skips when the snapshot is newer than this script and the sample.
import { existsSync, mkdirSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Collection } from 'horosvec';
import { loadSample, SAMPLE_DIR, DIM } from '../lib/sample.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const SNAPSHOT = join(here, 'public', 'sample.hvsnap');

export async function buildSnapshot({ force = false, vectors = 'f16', out = SNAPSHOT } = {}) {
  const inputs = [fileURLToPath(import.meta.url), join(SAMPLE_DIR, 'base.f16vecs'), join(SAMPLE_DIR, 'texts_base.jsonl.gz')];
  if (!force && existsSync(out) && inputs.every((f) => statSync(f).mtimeMs <= statSync(out).mtimeMs)) return false;
  const { docs } = loadSample();
  const col = Collection.create({ dim: DIM, metric: 'cosine', vectors });
  for (let s = 0; s < docs.length; s += 5000) {
    const part = docs.slice(s, s + 5000);
    const vecs = new Float32Array(part.length * DIM);
    part.forEach((d, i) => vecs.set(d.vector, i * DIM));
    await col.add(part.map((_, i) => s + i), vecs, part.map((d) => ({ text: d.text, source: d.source })));
  }
  const bytes = await col.toBytes();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out + '.part', bytes);
  renameSync(out + '.part', out);
  console.log(`build-snapshot: ${docs.length} records (${vectors} rows) → ${out} (${(bytes.length / 1e6).toFixed(1)} MB)`);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildSnapshot({ force: process.argv.includes('--force') });
