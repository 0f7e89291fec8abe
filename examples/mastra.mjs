// Mastra over horosvec: ingest the shipped sample's texts into a durable index, retrieve with a
// metadata filter.
//
//   node examples/mastra.mjs
//
// Uses `HorosvecVector` (horosvec/mastra), a `MastraVector` of @mastra/core, over a directory
// of named collections under a temporary directory (removed at the end). The embeddings are
// the sample's precomputed all-MiniLM-L6-v2 vectors (no model runs here): `embed(text)` looks
// a text of the sample up, as an embedding model would compute it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HorosvecVector } from 'horosvec/mastra';
import { loadSample } from './lib/sample.mjs';

const COUNT = 5000;
const BATCH = 500;
const { docs, queries, embed } = loadSample();
const dir = mkdtempSync(join(tmpdir(), 'horosvec-mastra-example-'));
const store = new HorosvecVector({ path: dir });

try {
  await store.createIndex({ indexName: 'sample', dimension: 384, metric: 'cosine' });
  // the sample has a few ids twice (different senses of a dictionary word): the last one wins
  const texts = docs.slice(0, COUNT);
  for (let i = 0; i < texts.length; i += BATCH) {
    const batch = texts.slice(i, i + BATCH);
    await store.upsert({
      indexName: 'sample',
      vectors: batch.map((d) => Array.from(embed(d.text))),
      // the text travels in the metadata, as in Mastra's own RAG examples
      metadata: batch.map((d) => ({ text: d.text, source: d.source, rank: d.rank })),
      ids: batch.map((d) => d.id),
    });
  }
  const stats = await store.describeIndex({ indexName: 'sample' });
  console.log(`indexed ${stats.count} texts into "sample" (${stats.dimension}-d, ${stats.metric}) under ${dir}`);

  const question = queries[214].text; // a held-out FOLDOC-like sentence about a reader program
  const hits = await store.query({ indexName: 'sample', queryVector: Array.from(embed(question)), topK: 5, filter: { source: 'foldoc' } });
  console.log(`query: ${JSON.stringify(question)}, filter { source: 'foldoc' }, top 5 (score = cosine similarity):`);
  for (const h of hits) console.log(`  ${h.score.toFixed(3)} [${h.metadata.source}] ${h.metadata.text.slice(0, 90)}`);

  await store.deleteIndex({ indexName: 'sample' });
  console.log((await store.listIndexes()).length === 0 ? 'index removed' : 'index still listed');
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
