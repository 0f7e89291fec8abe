// Generated from adapters/langchain.d.ts by scripts/gen-dcts.mjs: do not edit (the CommonJS
// copy of the typings, for `require` and `module: node16` CommonJS projects).
/**
 * horosvec/langchain: a LangChain.js vector store over one horosvec `Collection`
 * (`@langchain/core` ≥ 1, an optional peer dependency).
 *
 * Each document is one record: its id, its vector and, as the record's metadata, the envelope
 * `{ text: pageContent, meta: metadata }`; so a durable store (`open`) and a snapshot (`save`)
 * hold the documents themselves, with no side file. Metadata must be JSON (a `Date` becomes a
 * string).
 *
 * Scores (`similaritySearchWithScore`, `similaritySearchVectorWithScore`) are similarities,
 * higher is more similar, per metric:
 * - `cosine` (default): cos(q, x) = 1 − distance, in [−1, 1];
 * - `ip`: the inner product q·x;
 * - `l2`: 1 / (1 + ‖q − x‖²), in (0, 1];
 * - `l1`: 1 / (1 + Σ|qᵢ − xᵢ|), in (0, 1].
 * `similaritySearchWithRelevanceScores` maps them to [0, 1] (see `_selectRelevanceScoreFn`).
 *
 * Errors are `Error`s with a stable `code` (`HV_INVALID_ARGUMENT` for bad arguments, messages
 * starting with `HorosvecStore:`, and the core's codes such as `HV_DIM_MISMATCH`); a failed call
 * writes nothing.
 */
import { SaveableVectorStore, type MaxMarginalRelevanceSearchOptions } from '@langchain/core/vectorstores';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import type { DocumentInterface } from '@langchain/core/documents';
import type { Callbacks } from '@langchain/core/callbacks/manager';
import type { Collection, Filter, IndexOptions, Metric } from 'horosvec';

/**
 * A filter of `HorosvecStore`: a horosvec {@link Filter} over the documents' metadata
 * (`{ source: 'foldoc' }`, `{ rank: { $lt: 1000 } }`, `$and` / `$or` / `$not`...), evaluated in
 * the core during the search; or a predicate over the document, slower (the store over-fetches,
 * then scans every document when too few of those match; the result is still `min(k, matches)`
 * documents).
 */
export type HorosvecFilter = Filter | ((doc: DocumentInterface) => boolean);

/** Arguments of the `HorosvecStore` constructor (and of `fromTexts` / `fromDocuments`). */
export interface HorosvecStoreArgs {
  /** Vector dimension; without it (and without `collection`) the first add sets it. */
  dim?: number;
  /** Metric of a collection the store creates (default `'cosine'`); must match `collection`'s when both are given. */
  metric?: Metric;
  /**
   * The collection to store the documents in: any horosvec `Collection` (in memory from
   * 'horosvec' or 'horosvec/wasm', durable from `Collection.open`). Default: an in-memory one of
   * the package's default backend, created at once when `dim` is given, else on the first add.
   */
  collection?: Collection<any>;
}

/** Options of `addDocuments` / `addVectors`. */
export interface HorosvecAddOptions {
  /** One id per document; default each document's `id`, else a new `crypto.randomUUID()`. */
  ids?: string[];
}

/** Options of `HorosvecStore.open`. */
export interface HorosvecOpenOptions {
  /** Vector dimension: required to create a store; must match the stored one when given. */
  dim?: number;
  /** Metric: default `'cosine'` for a new directory, the stored one otherwise. */
  metric?: Metric;
  /** A view without the writer's lock: searches only; writes fail with `HV_READ_ONLY`. */
  readOnly?: boolean;
}

/** Options of `HorosvecStore.load`. */
export interface HorosvecLoadOptions {
  /** The `Collection` class to load into (e.g. the one of 'horosvec/wasm'); default the package's. */
  Collection?: { fromBytes(bytes: Uint8Array): Promise<Collection<any>>; create(options: { dim: number; metric?: Metric }): Collection<any> };
}

export declare class HorosvecStore extends SaveableVectorStore {
  FilterType: HorosvecFilter;
  /** The collection holding the documents; `undefined` until the first add when no `dim` was given. */
  collection: Collection<any> | undefined;
  /** The collection's metric. */
  metric: Metric;
  /** The vector dimension, `undefined` until known. */
  dim: number | undefined;

  /** @throws `HV_INVALID_ARGUMENT` (bad `dim` or `metric`, not a collection, or one that differs from `dim` / `metric`) */
  constructor(embeddings: EmbeddingsInterface, args?: HorosvecStoreArgs);
  /** `'horosvec'`. */
  _vectorstoreType(): string;

  /**
   * Embeds the documents' `pageContent` and adds them (see `addVectors`).
   * @returns the documents' ids, in order
   */
  addDocuments(documents: DocumentInterface[], options?: HorosvecAddOptions): Promise<string[]>;
  /**
   * Adds documents with their vectors. A document whose id is already stored is replaced
   * (upsert, as LangChain's Chroma, Pinecone and Qdrant stores do). All or nothing.
   * @returns the documents' ids, in order
   * @throws `HV_INVALID_ARGUMENT` (counts differ, an id that is not a non-empty string, a document
   * without a string `pageContent`, metadata not an object or not JSON), `HV_DIM_MISMATCH`,
   * `HV_INVALID_VECTOR`
   */
  addVectors(vectors: ArrayLike<number>[], documents: DocumentInterface[], options?: HorosvecAddOptions): Promise<string[]>;

  /**
   * The `k` nearest documents, best first, with their similarity (higher is more similar; per
   * metric in the module doc). Returned documents carry their `id`.
   * @throws `HV_INVALID_ARGUMENT` (`k` not a positive integer, a bad filter), `HV_DIM_MISMATCH`
   */
  similaritySearchVectorWithScore(query: ArrayLike<number>, k: number, filter?: HorosvecFilter): Promise<[DocumentInterface, number][]>;

  /**
   * Maps a similarity to a relevance in [0, 1], higher is more relevant: `cosine`
   * (1 + cos) / 2; `ip` (1 + q·x) / 2 clamped to [0, 1] (cosine's for unit-length vectors);
   * `l2` and `l1` the similarity itself, 1 / (1 + distance).
   */
  _selectRelevanceScoreFn(): (similarity: number) => number;
  /** As `similaritySearchWithScore` (default `k` 4), each score mapped by `_selectRelevanceScoreFn` to [0, 1]. */
  similaritySearchWithRelevanceScores(query: string, k?: number, filter?: HorosvecFilter): Promise<[DocumentInterface, number][]>;

  /**
   * Maximal marginal relevance over the `fetchK` (default 20) nearest documents: picks `k`, each
   * maximising `lambda·cos(query, d) − (1 − lambda)·max cos(d, picked)` (`lambda` default 0.5; 1
   * is plain relevance, 0 most diverse).
   * @throws `HV_INVALID_ARGUMENT` (bad `k`, `fetchK`, `lambda` or filter)
   */
  maxMarginalRelevanceSearch(query: string, options: MaxMarginalRelevanceSearchOptions<this['FilterType']>, _callbacks?: Callbacks): Promise<DocumentInterface[]>;

  /**
   * Deletes by id (unknown ids are ignored) or by filter (a filter object runs in the core as one
   * write; a predicate scans every document first). Exactly one of `ids` and `filter`.
   * @throws `HV_INVALID_ARGUMENT` (neither or both, ids not strings, a bad filter)
   */
  delete(params: { ids: string[]; filter?: undefined } | { filter: HorosvecFilter; ids?: undefined }): Promise<void>;

  /** The stored documents with these ids, in order (`undefined` for an unknown id). */
  getByIds(ids: string[]): Promise<(DocumentInterface | undefined)[]>;
  /** Builds the collection's approximate index (in-memory collections search exactly until then; durable ones index themselves). */
  buildIndex(options?: IndexOptions): Promise<void>;
  /** Closes the collection (a durable one releases its directory's lock). */
  close(): Promise<void>;

  /**
   * Writes a snapshot to `directory` (created if needed): `collection.hvsnap` (the collection's
   * `toBytes()`) and `horosvec-langchain.json` (format, metric, dim), each replaced atomically.
   * Works on every collection (native, wasm, durable).
   */
  save(directory: string): Promise<void>;
  /**
   * Reads what `save` wrote into a new in-memory collection.
   * @throws `HV_IO` (no store there), `HV_CORRUPT` (not written by `save`, or damaged), `HV_VERSION`
   */
  static load(directory: string, embeddings: EmbeddingsInterface, options?: HorosvecLoadOptions): Promise<HorosvecStore>;
  /**
   * A durable store in `directory` over `Collection.open` (native Node backend only): each write
   * is durable when its Promise resolves; reopening finds every document.
   * @throws `HV_UNSUPPORTED` (not the native backend), `HV_INVALID_ARGUMENT` (no `dim` to create;
   * `dim` / `metric` differing from the stored ones), `HV_LOCKED` (another writer has it open)
   */
  static open(directory: string, embeddings: EmbeddingsInterface, options?: HorosvecOpenOptions): Promise<HorosvecStore>;
  /** A store over `texts`; `metadatas` is one object per text, or one for all. */
  static fromTexts(texts: string[], metadatas: object[] | object, embeddings: EmbeddingsInterface, args?: HorosvecStoreArgs): Promise<HorosvecStore>;
  /** A store over `docs` (ids: each document's `id`, else new uuids). */
  static fromDocuments(docs: DocumentInterface[], embeddings: EmbeddingsInterface, args?: HorosvecStoreArgs): Promise<HorosvecStore>;
}

export default HorosvecStore;
