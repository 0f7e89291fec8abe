// Generated from adapters/llamaindex.d.ts by scripts/gen-dcts.mjs: do not edit (the CommonJS
// copy of the typings, for `require` and `module: node16` CommonJS projects).
/**
 * `horosvec/llamaindex`: a LlamaIndex.TS vector store (`BaseVectorStore` of `@llamaindex/core`,
 * an optional peer dependency) over a horosvec {@link Collection}.
 *
 * Each node is one record: id = `node.id_`, vector = `node.embedding`, metadata = the envelope
 * `{ text, meta, doc, node, empty? }`: `text` the node's text, `meta` its `metadata` (what
 * `MetadataFilters` address), `doc` its ref doc id (`node.sourceNode.nodeId`; a `Document` with
 * no source is its own), `node` the rest of the node as a JSON string (type, relationships,
 * templates, char offsets: LlamaIndex's `_node_content`), from which `query` rebuilds the node,
 * and `empty` the metadata paths holding null, `''` or `[]` (for `is_empty`). `storesText` is
 * `true`: no docstore is needed to get the nodes back.
 *
 * Scores: `similarities` are higher-is-better, from the horosvec distance per metric:
 * `cosine` cos(q, x) = 1 − distance, in [−1, 1]; `ip` the inner product q·x; `l2`
 * 1 / (1 + ‖q − x‖²), in (0, 1]; `l1` 1 / (1 + Σ|qᵢ − xᵢ|), in (0, 1].
 *
 * Errors are `Error`s with a stable `code`: `HV_INVALID_ARGUMENT` (bad input: nothing is
 * written), `HV_DIM_MISMATCH`, `HV_INVALID_VECTOR`, `HV_UNSUPPORTED` (a query mode other than
 * `default` and `mmr`; `open` under wasm), `HV_CORRUPT` / `HV_VERSION` (a persisted store that
 * cannot be read), `HV_CLOSED`, and those of the collection.
 */
import { BaseVectorStore, type MetadataFilter, type MetadataFilters, type VectorStoreQuery, type VectorStoreQueryResult } from '@llamaindex/core/vector-store';
import type { BaseEmbedding } from '@llamaindex/core/embeddings';
import type { BaseNode } from '@llamaindex/core/schema';
import type { Collection, Filter, Metric, OpenOptions } from '../index.cjs';

/** The horosvec `Collection` class to load into (the one of `'horosvec'` or of `'horosvec/wasm'`). */
export type CollectionClass = Pick<typeof Collection, 'create' | 'fromBytes' | 'open'>;

export interface HorosvecVectorStoreOptions {
  /** Vector dimension; default: that of the first node added (or of `collection`). */
  dim?: number;
  /** Metric of the collection the store makes (default `'cosine'`). */
  metric?: Metric;
  /**
   * Any horosvec collection to store into (in memory from `'horosvec'` or `'horosvec/wasm'`, or
   * durable from `Collection.open`); it stays the caller's (`close()` does not close it).
   * Default: an in-memory collection of the package's entry (native under Node), made when the
   * dimension is known.
   */
  collection?: Collection;
  /** The embedding model (default: LlamaIndex's `Settings.embedModel`, read when used). */
  embedModel?: BaseEmbedding;
  /** Same as `embedModel` (LlamaIndex accepts both names). */
  embeddingModel?: BaseEmbedding;
}

/**
 * `VectorStoreQuery.customParams` of this store:
 * - `nodeIds`: only these node ids (an allow-list; `docIds` restricts by ref doc id);
 * - `ef`: the graph search's list size (see `SearchOptions.ef`);
 * - `fetchK`: how many nearest candidates MMR picks from (default max(4 × similarityTopK, 20);
 *   at least similarityTopK).
 */
export interface HorosvecQueryParams {
  nodeIds?: string[];
  ef?: number;
  fetchK?: number;
}

export interface HorosvecOpenOptions extends Omit<OpenOptions, 'metric'> {
  /** Metric to create with (default `'cosine'`); must match the stored one otherwise. */
  metric?: Metric;
  embedModel?: BaseEmbedding;
  /** The `Collection` class whose `open` is used (default: the package's native one). */
  Collection?: CollectionClass;
}

export interface HorosvecPersistOptions {
  /** The `Collection` class to load the snapshot into (default: the package's; `'horosvec/wasm'`'s for wasm). */
  Collection?: CollectionClass;
  /** For a new store (no file at the path): its dimension. */
  dim?: number;
  /** For a new store (no file at the path): its metric (default `'cosine'`). */
  metric?: Metric;
}

/**
 * The horosvec filter (over the envelope) of a LlamaIndex `MetadataFilters`. Semantics, for a
 * filter `{ key, operator, value }` and the node's metadata value `f` at `key` (a dotted key
 * is a path into nested objects):
 * - every operator except `is_empty` is false when `key` is absent (as in `SimpleVectorStore`);
 * - `==` `f` equals `value` (a string or number; types never coerce: `'1'` is not `1`); `!=` the
 *   negation (key present); `>` `<` `>=` `<=`: numbers numerically, strings by code point, other
 *   types never match; a metadata **array** matches these on any of its elements (the core's
 *   rule, where `SimpleVectorStore` compares the array itself);
 * - `in`: `f` equals one of `value` (an array); `nin`: none of them (key present);
 * - `any`: `f` (an array) holds one of `value` (as `in`: a scalar equal to one matches too);
 * - `all`: `f` holds every one of `value` (`[]`: key present);
 * - `contains`: `f` (an array) holds `value` (a scalar equal to it matches too);
 * - `text_match`: `f` is a string containing `value` as a substring, case-sensitive (or an
 *   array with an element equal to it);
 * - `is_empty`: `key` absent, or its value `null`, `''` or `[]` (the value is ignored; `empty`
 *   is recorded by `add`, so records written otherwise only match when the key is absent);
 * - `condition`: `'and'` (default) or `'or'`; an empty `'and'` matches everything, an empty
 *   `'or'` nothing; an entry may itself be a `MetadataFilters` (nested).
 * @throws `HV_INVALID_ARGUMENT` for an unknown operator or condition, or a value of the wrong type.
 */
export declare function toHorosvecFilter(filters: MetadataFilters | HorosvecMetadataFilters): Filter;

/**
 * `MetadataFilters` whose entries may themselves be `MetadataFilters` (nested, as in LlamaIndex
 * Python; @llamaindex/core 0.6's type has flat entries only, so pass it to `query` with a cast).
 */
export interface HorosvecMetadataFilters {
  filters: Array<MetadataFilter | HorosvecMetadataFilters>;
  condition?: 'and' | 'or';
}

export declare class HorosvecVectorStore extends BaseVectorStore<Collection | undefined, HorosvecQueryParams> {
  storesText: boolean;
  isEmbeddingQuery: boolean;
  /** The model given, else `Settings.embedModel` (which throws LlamaIndex's error when unset). */
  embedModel: BaseEmbedding;
  /** @throws `HV_INVALID_ARGUMENT` (bad option, or `dim`/`metric` differing from `collection`'s). */
  constructor(options?: HorosvecVectorStoreOptions);
  /** The dimension (undefined before the first add when none was given). */
  readonly dim: number | undefined;
  readonly metric: Metric;
  /** The horosvec collection (undefined before the first add when no `dim` was given). */
  client(): Collection | undefined;
  /**
   * Stores the nodes, upserting by node id (a node added again replaces its record); every node
   * needs an `embedding` of the store's dimension. All or nothing. Resolves to the node ids.
   * @throws `HV_INVALID_ARGUMENT` (not nodes, no embedding, metadata not JSON), `HV_DIM_MISMATCH`,
   * `HV_INVALID_VECTOR`.
   */
  add(nodes: BaseNode[]): Promise<string[]>;
  /** Deletes every node whose ref doc id is `refDocId` (one `deleteWhere({ doc })`: durable on an opened store). */
  delete(refDocId: string, deleteOptions?: object): Promise<void>;
  /** Deletes nodes by node id; resolves to how many existed. */
  deleteNodes(nodeIds: string[]): Promise<number>;
  /** The stored nodes with these ids (unknown ones skipped), with their embeddings. */
  getNodes(nodeIds: string[]): Promise<BaseNode[]>;
  /**
   * The `similarityTopK` nearest nodes, best first, among those `docIds` (ref doc ids; note that
   * `SimpleVectorStore` of LlamaIndex.TS reads them as node ids: use `customParams.nodeIds` for
   * that) and `filters` (see {@link toHorosvecFilter}) allow. `queryEmbedding` is required, or
   * `queryStr` embedded with `embedModel`. Modes: `default`; `mmr` (maximal marginal relevance
   * over the `fetchK` nearest, λ = `mmrThreshold`, default 0.5: 1 is pure relevance, 0 pure
   * diversity; relevance and redundancy are cosine similarities whatever the metric);
   * `similarities` are then still the similarity to the query (per metric, above).
   * @throws `HV_INVALID_ARGUMENT`, `HV_UNSUPPORTED` (another mode), `HV_DIM_MISMATCH`.
   */
  query(query: VectorStoreQuery<HorosvecQueryParams>, options?: object): Promise<VectorStoreQueryResult>;
  /**
   * Writes a snapshot (`toBytes()`): `persistPath` (default `./storage/vector_store.json`) gets a
   * small JSON naming the snapshot file written beside it; both are written through a synced
   * temporary file and a rename, the JSON last, so a crash leaves the old or the new state;
   * the replaced snapshot is then removed. Persists run one at a time. Node only.
   * @throws `HV_INVALID_ARGUMENT` when `persistPath` holds a file `persist` did not write (a
   * `SimpleVectorStore`'s, say): it is not overwritten.
   */
  persist(persistPath?: string): Promise<void>;
  /** `fromPersistPath(join(persistDir, 'vector_store.json'), ...)`; default dir `./storage`. */
  static fromPersistDir(persistDir?: string, embedModel?: BaseEmbedding, options?: HorosvecPersistOptions): Promise<HorosvecVectorStore>;
  /**
   * Loads what `persist(persistPath)` wrote, or makes an empty store when nothing is there. The
   * store then persists to that path again after each add and delete (as `SimpleVectorStore`
   * does: a full snapshot each time; for large stores use `open`). Node only.
   * @throws `HV_CORRUPT` (not written by `persist`, e.g. a `SimpleVectorStore` file; snapshot
   * missing or damaged: nothing is overwritten), `HV_VERSION`.
   */
  static fromPersistPath(persistPath: string, embedModel?: BaseEmbedding, options?: HorosvecPersistOptions): Promise<HorosvecVectorStore>;
  /**
   * A durable store in directory `dir` over `Collection.open` (native Node only): each add and
   * delete is durable when it resolves, no persist step. `dim` is needed to create it.
   * @throws `HV_UNSUPPORTED` (wasm), `HV_LOCKED` (another writer), and those of `Collection.open`.
   */
  static open(dir: string, options?: HorosvecOpenOptions): Promise<HorosvecVectorStore>;
  /** Closes the collection if the store made or opened it (one passed in stays open). */
  close(): Promise<void>;
}
