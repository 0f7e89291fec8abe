// Generated from adapters/mastra.d.ts by scripts/gen-dcts.mjs: do not edit (the CommonJS
// copy of the typings, for `require` and `module: node16` CommonJS projects).
/**
 * `horosvec/mastra`: a Mastra vector store over horosvec named collections (`openDatabase`),
 * one collection per Mastra index. Requires `@mastra/core` (optional peer dependency, >=1 <2).
 *
 * Records: Mastra's metadata is stored inside horosvec's adapter envelope, as
 * `{ meta: <Mastra metadata> }`; filters address Mastra's metadata (`{ source: 'foldoc' }`),
 * translated to horosvec filters over `meta.*` and evaluated in the core.
 *
 * Metrics (`createIndex`): Mastra `cosine` → horosvec `cosine`, `euclidean` → `l2`,
 * `dotproduct` → `ip`. `query` scores are similarities, higher is more similar, as Mastra's
 * stores report them: cosine `cos(q, x)` in [−1, 1]; dotproduct `q·x`; euclidean
 * `1 / (1 + ‖q − x‖²)` in (0, 1] (from the squared distance).
 *
 * Errors are `MastraError`s (`@mastra/core/error`), domain `MASTRA_VECTOR`, ids
 * `MASTRA_VECTOR_HOROSVEC_<OPERATION>_<STATUS>` (e.g. `..._QUERY_INDEX_NOT_FOUND`,
 * `..._QUERY_INVALID_FILTER`, `..._UPSERT_FAILED`); category `USER` for bad input (the
 * horosvec code, e.g. `HV_DIM_MISMATCH`, is in `details.code` and the horosvec error is the
 * `cause`), `THIRD_PARTY` for a failure inside horosvec (e.g. `HV_IO`). A failed call writes
 * nothing (except as `upsert` and `updateVector` describe).
 */
import { MastraVector } from '@mastra/core/vector';
import type {
  CreateIndexParams,
  DeleteIndexParams,
  DeleteVectorParams,
  DeleteVectorsParams,
  DescribeIndexParams,
  IndexStats,
  QueryResult,
  QueryVectorParams,
  UpdateVectorParams,
  UpsertVectorParams,
  VectorFilter,
} from '@mastra/core/vector';
import { BaseFilterTranslator } from '@mastra/core/vector/filter';
import type { Database, Filter } from 'horosvec';

/** Mastra's metric names → horosvec's. */
export declare const METRICS: { readonly cosine: 'cosine'; readonly euclidean: 'l2'; readonly dotproduct: 'ip' };

/**
 * Mastra's filter → a horosvec filter over Mastra's metadata (before it is moved under
 * `meta.*`). Field operators `$eq $ne $gt $gte $lt $lte $in $nin $all $exists $contains` and a
 * field-level `$not`; logical `$and $or $not $nor`. A field holding an array matches `$eq`,
 * `$in` and the comparisons on any element; `$all` needs every value present; `$contains` is an
 * array holding the value (each of them, given an array) or a string holding the substring.
 * `Date` values become ISO strings (how JSON stores them). Refused (an `Error` naming the
 * operator; `HorosvecVector` turns it into a USER `MastraError` `..._INVALID_FILTER`):
 * `$elemMatch`, `$regex`/`$options` (and RegExp values), `$size`, an array as a plain value
 * (ambiguous: use `$in`, `$all` or `$contains`), a field operator at the top level.
 */
export declare class HorosvecFilterTranslator extends BaseFilterTranslator<VectorFilter, Filter | undefined> {
  translate(filter: VectorFilter): Filter | undefined;
}

export interface HorosvecVectorConfig {
  /** A directory: durable indexes, one collection subdirectory each (Node, native backend). */
  path?: string;
  /** Any `openDatabase()` result (e.g. in memory over `horosvec/wasm`); the caller closes it. */
  database?: Database;
  /** Durability of the collections opened from `path` (default `'full'`). */
  durability?: 'full' | 'normal' | 'off';
  /** The store's Mastra id (default `'horosvec'`). */
  id?: string;
  disableInit?: boolean;
}

export declare class HorosvecVector extends MastraVector<VectorFilter> {
  /** Exactly one of `path` and `database` (else a USER `MastraError`). */
  constructor(config: HorosvecVectorConfig);
  /** The named-collections database (opened on first use when built from `path`). */
  database(): Promise<Database>;
  /** Closes the database if this store opened it (from `path`); else does nothing. */
  close(): Promise<void>;
  /**
   * Creates the index (a collection; name rules of `Database`: `^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$`,
   * no two names differing only by case). An existing index of the same dimension is kept (a
   * different metric is logged as a warning); another dimension fails
   * `VECTOR_VALIDATE_INDEX_DIMENSION_MISMATCH`. `metric` defaults to `'cosine'`.
   */
  createIndex(params: CreateIndexParams): Promise<void>;
  /** Index names, sorted. */
  listIndexes(): Promise<string[]>;
  /** `{ dimension, count, metric }` (`metric` undefined for a collection made with horosvec's `l1`). */
  describeIndex(params: DescribeIndexParams): Promise<IndexStats>;
  /** Drops the index and its vectors (crash-safe); an absent index is a no-op. */
  deleteIndex(params: DeleteIndexParams): Promise<void>;
  /**
   * Inserts or replaces vectors (one atomic batch); ids are generated (UUIDs) when absent and
   * returned in order. Sparse vectors are refused. With `deleteFilter`: horosvec cannot make
   * the delete and the insert one atomic write, so the new vectors are written first, then
   * every record matching `deleteFilter` that this call did not write is deleted (a second
   * atomic write). A crash between the two leaves both the old and the new vectors, never
   * neither (repeating the upsert finishes it); a failed insert deletes nothing; a concurrent
   * query may see both for that moment.
   */
  upsert(params: UpsertVectorParams<VectorFilter>): Promise<string[]>;
  /**
   * The `topK` (default 10) nearest vectors, best first, scored as similarities (see the
   * module note); `metadata` is what was upserted; `vector` only with `includeVector`. A
   * filtered query returns `min(topK, matches)` hits. `queryVector` is required (no
   * metadata-only query); sparse vectors are refused.
   */
  query(params: QueryVectorParams<VectorFilter>): Promise<QueryResult[]>;
  /**
   * Replaces the vector and/or the whole metadata object of the vector `id` (a USER error
   * `..._UPDATE_VECTOR_NOT_FOUND` if absent) or of every vector matching `filter` (written in
   * atomic batches of 1,000: a crash midway leaves some batches updated).
   */
  updateVector(params: UpdateVectorParams<VectorFilter>): Promise<void>;
  /** Deletes one vector (an absent id is a no-op). */
  deleteVector(params: DeleteVectorParams): Promise<void>;
  /** Deletes by `ids` or by a non-empty `filter` (exactly one), in one atomic write. */
  deleteVectors(params: DeleteVectorsParams<VectorFilter>): Promise<void>;
}
