// LlamaIndex.TS over horosvec: the shipped sample's real sentences as TextNodes (metadata
// { source, rank }, their precomputed all-MiniLM-L6-v2 embeddings), retrieved with a
// MetadataFilters filter.
//
//   node examples/llamaindex.mjs [n]     (n: how many sample texts to ingest, default 3000)
//
// Prints, for three held-out queries, the nearest nodes among the `wordnet` ones and among the
// ~1 % with rank < 1000, then one JSON summary line.

import { BaseEmbedding } from '@llamaindex/core/embeddings';
import { Document, NodeRelationship, TextNode } from '@llamaindex/core/schema';
import { VectorStoreQueryMode } from '@llamaindex/core/vector-store';
import { HorosvecVectorStore } from 'horosvec/llamaindex';
import { loadSample } from './lib/sample.mjs';

const n = Number(process.argv[2] ?? 3000);
const { docs, queries, embed } = loadSample();

// An embedding model of the shipped sample (no model runs here: a lookup of its embeddings).
class SampleEmbedding extends BaseEmbedding {
  async getTextEmbedding(text) {
    return Array.from(embed(text));
  }
}

// one source Document per dataset, so delete(refDocId) can drop a whole source
const sources = new Map();
// (node ids: the dataset id and the row, since a few dataset ids repeat)
const nodes = docs.slice(0, n).map((d, i) => {
  if (!sources.has(d.source)) sources.set(d.source, new Document({ id_: `source:${d.source}`, text: d.source }));
  return new TextNode({
    id_: `${d.id}#${i}`,
    text: d.text,
    metadata: { source: d.source, rank: d.rank },
    embedding: Array.from(d.vector),
    relationships: { [NodeRelationship.SOURCE]: sources.get(d.source).asRelatedNodeInfo() },
  });
});

const store = new HorosvecVectorStore({ metric: 'cosine', embedModel: new SampleEmbedding() });
await store.add(nodes);

const filters = [
  { filters: [{ key: 'source', operator: '==', value: 'wordnet' }] },
  { filters: [{ key: 'rank', operator: '<', value: 1000 }] },
];
let hits = 0;
for (const q of queries.slice(0, 3)) {
  console.log(`query: ${q.text}`);
  const queryEmbedding = await store.embedModel.getTextEmbedding(q.text);
  for (const f of filters) {
    const res = await store.query({ queryEmbedding, similarityTopK: 3, mode: VectorStoreQueryMode.DEFAULT, filters: f });
    const [cond] = f.filters;
    console.log(`  where ${cond.key} ${cond.operator} ${cond.value}:`);
    res.nodes.forEach((node, i) => {
      hits++;
      const m = node.metadata;
      console.log(`    ${res.similarities[i].toFixed(3)}  [${m.source} rank ${m.rank}]  ${node.getContent().slice(0, 70)}`);
    });
  }
}

// drop one source document's nodes through delete(refDocId)
const before = store.client().size;
await store.delete('source:fortune');
console.log(JSON.stringify({ nodes: before, afterDeletingFortune: store.client().size, hits }));
await store.close();
