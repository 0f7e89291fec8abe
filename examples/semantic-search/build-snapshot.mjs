// Builds the page's index in Node from the shipped sample (data/sample): an exact (brute-force)
// cosine collection of the 20,000 all-MiniLM-L6-v2 vectors, each record's metadata
// { text, source }, saved with toBytes() to public/sample.hvsnap, which the page loads with
// Collection.fromBytes (no rebuild in the browser). Exact search: at 20,000 × 384 a scan is a few
// ms and its results are the ground truth, so the page and the Node side agree exactly.
// Idempotent: skips when the snapshot is newer than this script and the sample.
import { existsSync, mkdirSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Collection } from 'horosvec';
import { loadSample, SAMPLE_DIR, DIM } from '../lib/sample.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const SNAPSHOT = join(here, 'public', 'sample.hvsnap');

export async function buildSnapshot({ force = false, vectors = 'f32', out = SNAPSHOT } = {}) {
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
