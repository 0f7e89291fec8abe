// The shipped sample (data/sample) as a RAG corpus: 20,000 real sentences with their
// all-MiniLM-L6-v2 embeddings (384-d, L2-normalised), and 500 held-out query sentences with
// theirs. No model runs here (this machine cannot download weights): `embed(text)` looks the
// text's precomputed embedding up, so the frameworks' examples and tests run on real vectors and
// real texts. A text that is not in the sample is refused rather than given a made-up vector.
//
// Each record's `source` is the prefix of its dataset id (gcide, wordnet, fortune, foldoc,
// jargon); `rank` is a seeded integer in 0..99,999 (bench/lib/filters.mjs, the filtered sweep's metadata), so `{ rank: { $lt: 1000 } }` keeps about 1 %.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { readVecs } from '../../npm/cli/vecs.js';
import { loadMetadata } from '../../bench/lib/filters.mjs';

export const SAMPLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'data', 'sample');
export const DIM = 384;

function readLines(file) {
  return gunzipSync(readFileSync(join(SAMPLE_DIR, file)))
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

let cached;

/**
 * The sample: `docs[i] = { id, text, source, rank, vector }` (vector: a Float32Array of 384),
 * `queries[j] = { text, vector }`, and `embed(text)`, the precomputed embedding of any of
 * those texts (a fresh Float32Array; throws for a text outside the sample).
 */
export function loadSample() {
  if (cached) return cached;
  const base = readVecs(join(SAMPLE_DIR, 'base.f16vecs'));
  const q = readVecs(join(SAMPLE_DIR, 'queries.fvecs'));
  const meta = loadMetadata('sample', base.n);
  const docs = readLines('texts_base.jsonl.gz').map((r, i) => ({
    id: r.id,
    text: r.text,
    source: meta[i].source,
    rank: meta[i].rank,
    vector: base.data.slice(i * DIM, (i + 1) * DIM),
  }));
  const queries = readLines('texts_query.jsonl.gz').map((r, j) => ({ text: r.text, vector: q.data.slice(j * DIM, (j + 1) * DIM) }));
  const byText = new Map();
  for (const d of docs) byText.set(d.text, d.vector);
  for (const x of queries) byText.set(x.text, x.vector);
  const embed = (text) => {
    const v = byText.get(text);
    if (v === undefined) throw new Error(`not a text of the shipped sample (no model runs here): ${JSON.stringify(String(text).slice(0, 60))}`);
    return v.slice();
  };
  cached = { docs, queries, embed };
  return cached;
}
