// LangChain.js over horosvec: ingest 3,000 texts of the shipped sample with `fromTexts`
// (metadata `{ source, rank }`), then retrieve through `asRetriever` with a filter the core
// evaluates during the search (`{ source: 'foldoc' }`), plainly and with MMR.
//
//   node examples/langchain.mjs [queries=3]
//
// The embeddings are the sample's precomputed all-MiniLM-L6-v2 vectors (no model runs here);
// with a real model, pass any LangChain `Embeddings` instead.

import { Embeddings } from '@langchain/core/embeddings';
import { HorosvecStore } from 'horosvec/langchain';
import { loadSample } from './lib/sample.mjs';

const N = 3000;
const nQueries = Number(process.argv[2] ?? 3);

/** LangChain `Embeddings` over the sample's precomputed vectors. */
class SampleEmbeddings extends Embeddings {
  constructor(embed) {
    super({});
    this.embed = embed;
  }
  async embedDocuments(texts) {
    return texts.map((t) => Array.from(this.embed(t)));
  }
  async embedQuery(text) {
    return Array.from(this.embed(text));
  }
}

const { docs, queries, embed } = loadSample();
const corpus = docs.slice(0, N);
const store = await HorosvecStore.fromTexts(
  corpus.map((d) => d.text),
  corpus.map((d) => ({ source: d.source, rank: d.rank })),
  new SampleEmbeddings(embed),
  { metric: 'cosine' },
);
console.log(`ingested ${store.collection.size} texts (dim ${store.dim}, ${store.metric})`);

const retriever = store.asRetriever({ k: 3, filter: { source: 'foldoc' } });
const diverse = store.asRetriever({ k: 3, filter: { source: 'foldoc' }, searchType: 'mmr', searchKwargs: { fetchK: 20, lambda: 0.5 } });
const short = (s) => (s.length > 90 ? `${s.slice(0, 87)}...` : s);
// held-out queries about computing: those whose nearest text, unfiltered, is a FOLDOC entry
const picked = [];
for (const q of queries) {
  if (picked.length === nQueries) break;
  const [top] = await store.similaritySearch(q.text, 1);
  if (top.metadata.source === 'foldoc') picked.push(q);
}
for (const q of picked) {
  console.log(`\nquery: ${short(q.text)}`);
  for (const d of await retriever.invoke(q.text)) console.log(`  [${d.metadata.source} ${d.metadata.rank}] ${short(d.pageContent)}`);
  console.log('  mmr:');
  for (const d of await diverse.invoke(q.text)) console.log(`  [${d.metadata.source} ${d.metadata.rank}] ${short(d.pageContent)}`);
}
await store.close();
