// Type-level use of horosvec/langchain against @langchain/core's own types (checked by
// `npx tsc -p tsconfig.json`, not run): HorosvecStore is a SaveableVectorStore and a
// VectorStoreInterface, its filters are typed, its retriever takes them.
import type { DocumentInterface } from '@langchain/core/documents';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import { SaveableVectorStore, VectorStoreRetriever, type VectorStoreInterface } from '@langchain/core/vectorstores';
import { Collection } from 'horosvec/wasm';
import { HorosvecStore, type HorosvecFilter } from 'horosvec/langchain';

export async function typedUsage(embeddings: EmbeddingsInterface): Promise<void> {
  const store = await HorosvecStore.fromTexts(['a', 'b'], [{ source: 'x' }, { source: 'y' }], embeddings, { metric: 'cosine' });
  const asBase: SaveableVectorStore = store;
  const asInterface: VectorStoreInterface = store;
  void asBase;
  void asInterface;

  const byObject: HorosvecFilter = { source: 'foldoc', rank: { $lt: 1000 } };
  const byFunction: HorosvecFilter = (doc: DocumentInterface) => doc.metadata.source === 'foldoc';
  const ids: string[] = await store.addDocuments([{ pageContent: 'c', metadata: {} }], { ids: ['c'] });
  const scored: [DocumentInterface, number][] = await store.similaritySearchWithScore('a', 2, byObject);
  const relevance: [DocumentInterface, number][] = await store.similaritySearchWithRelevanceScores('a', 2, byFunction);
  const diverse: DocumentInterface[] = await store.maxMarginalRelevanceSearch('a', { k: 2, fetchK: 10, lambda: 0.5, filter: byObject }, undefined);
  void [ids, scored, relevance, diverse];

  const retriever: VectorStoreRetriever<HorosvecStore> = store.asRetriever({ k: 3, filter: byObject, searchType: 'mmr', searchKwargs: { fetchK: 20 } });
  const found: DocumentInterface[] = await retriever.invoke('a');
  void found;

  await store.delete({ ids: ['c'] });
  await store.delete({ filter: { source: 'x' } });
  await store.delete({ filter: byFunction });
  await store.save('/tmp/x');
  const loaded: HorosvecStore = await HorosvecStore.load('/tmp/x', embeddings, { Collection });
  const durable: HorosvecStore = await HorosvecStore.open('/tmp/y', embeddings, { dim: 384, metric: 'cosine', readOnly: false });
  const wasmBacked = new HorosvecStore(embeddings, { collection: Collection.create({ dim: 384, metric: 'cosine' }) });
  void [loaded, durable, wasmBacked];

  // @ts-expect-error a filter is an object or a predicate, not a string
  await store.similaritySearch('a', 2, 'source = foldoc');
  // @ts-expect-error delete takes ids or a filter
  await store.delete({ everything: true });
}
