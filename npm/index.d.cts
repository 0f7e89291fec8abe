// Generated from index.d.ts by scripts/gen-dcts.mjs: do not edit (the CommonJS
// copy of the typings, for `require` and `module: node16` CommonJS projects).
/**
 * horosvec: an embedded vector database. One API over two builds: the native Node addon
 * (napi-rs; Promise methods run on a worker thread pool) and the WebAssembly build (SIMD128;
 * Promise methods do the work synchronously and resolve with the same shapes).
 *
 * Errors: every error is a {@link HorosvecError} (an `Error`) whose `code` is a stable string
 * (see {@link HorosvecErrorCode} and docs/errors.md); test with {@link isHorosvecError}. A failed
 * call leaves stored data as it was.
 */

/** Which build is running. */
export declare const backend: 'native' | 'wasm';
/** Name of the distance kernel set picked for this CPU, e.g. `"avx2-fma-f16c"`, `"wasm-simd128"`, `"scalar"`. */
export declare const kernel: string;
/** Package version. */
export declare const version: string;

/**
 * Distance metric; every distance is reported so that **lower is closer**:
 * - `'l2'`: squared Euclidean distance Σ(qᵢ − xᵢ)² (not square-rooted);
 * - `'cosine'`: 1 − cos(q, x), in [0, 2]; a zero vector (no direction) is at distance 1 from every vector;
 * - `'ip'`: negative inner product −q·x;
 * - `'l1'`: Manhattan distance Σ|qᵢ − xᵢ|.
 */
export type Metric = 'l2' | 'cosine' | 'ip' | 'l1';

/** The stable error codes of the core (docs/errors.md), carried on `error.code`. */
export type ErrorCode =
  | 'HV_DIM_MISMATCH'
  | 'HV_INVALID_VECTOR'
  | 'HV_INVALID_ARGUMENT'
  | 'HV_DUPLICATE_ID'
  | 'HV_NOT_FOUND'
  | 'HV_CLOSED'
  | 'HV_IO'
  | 'HV_CORRUPT'
  | 'HV_OUT_OF_MEMORY'
  | 'HV_CANCELLED'
  | 'HV_INTERNAL'
  | 'HV_LOCKED'
  | 'HV_VERSION'
  | 'HV_READ_ONLY'
  | 'HV_UNSUPPORTED'
  | 'HV_QUOTA';

/**
 * Every code a {@link HorosvecError} can carry: the core's ({@link ErrorCode}, docs/errors.md)
 * and the JS layer's own: `HV_ALREADY_EXISTS` (a {@link Database}'s `createCollection`) and
 * `HV_WORKER_FAILED` (`horosvec/worker`: the worker died, or was terminated, before answering).
 */
export type HorosvecErrorCode = ErrorCode | 'HV_ALREADY_EXISTS' | 'HV_WORKER_FAILED';

/**
 * The class of every error horosvec raises or rejects with, on both backends (and in the
 * LangChain and LlamaIndex adapters; the Mastra adapter raises Mastra's `MastraError`, with the
 * horosvec code in `details.code`). `message` starts with `code`. `instanceof` also holds for
 * errors of another copy of the package (a bundle holding it twice).
 *
 * ```ts
 * try { await col.add(1, v); } catch (e) { if (isHorosvecError(e, 'HV_DUPLICATE_ID')) … else throw e; }
 * ```
 */
export declare class HorosvecError extends Error {
  /** Not for users: horosvec makes its own errors. */
  private constructor();
  /** The stable code; match on it, never on the message. */
  readonly code: HorosvecErrorCode;
  /**
   * When the caller's own code threw while horosvec read an argument (a getter, a Proxy trap,
   * metadata's toJSON), `code` is `HV_INVALID_ARGUMENT` and `cause` is that exception.
   */
  cause?: unknown;
}

/**
 * Whether `e` is a {@link HorosvecError} (with code `code`, when given): narrows `e` in a
 * `catch` block.
 */
export declare function isHorosvecError<C extends HorosvecErrorCode = HorosvecErrorCode>(e: unknown, code?: C): e is HorosvecError & { readonly code: C };

/**
 * A record id: a string, or a non-negative integer ≤ 2⁵³ − 1. `7` and `"7"` are different ids;
 * each comes back as the type it went in as. A {@link Collection}'s second type parameter
 * narrows it (`Collection<Meta, number>`: hits, pages and `add` use `number` ids).
 */
export type Id = string | number;

/**
 * One vector of `dim` values: a `Float32Array` (subarray views included), any other numeric
 * typed array, or an array of numbers. Converted to `Float32Array`. Inputs are copied (or fully
 * read) before the call returns, so the caller may reuse, change or transfer its buffers at once.
 */
export type Vector = ArrayLike<number>;

/**
 * Several vectors: either one flat array of `n × dim` values, row-major, or an array of `n`
 * vectors of `dim` values each.
 */
export type VectorBatch = ArrayLike<number> | ReadonlyArray<ArrayLike<number>>;

/** Any JSON-serialisable value (stored as JSON text; comes back through `JSON.parse`). */
export type Metadata = unknown;

/** A value a filter compares a field with: JSON's scalars. */
export type FilterValue = string | number | boolean | null;

/**
 * The first character of a field name: anything but `$` (names starting with `$` are
 * operators). TypeScript cannot say "not `$`", so these are the printable ASCII characters; a
 * field whose name starts with another character (`'été'`) needs a cast (`as Filter`), and works
 * at run time.
 */
type FieldStart =
  | 'a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g' | 'h' | 'i' | 'j' | 'k' | 'l' | 'm' | 'n' | 'o' | 'p' | 'q' | 'r' | 's'
  | 't' | 'u' | 'v' | 'w' | 'x' | 'y' | 'z' | 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'I' | 'J' | 'K' | 'L'
  | 'M' | 'N' | 'O' | 'P' | 'Q' | 'R' | 'S' | 'T' | 'U' | 'V' | 'W' | 'X' | 'Y' | 'Z' | '0' | '1' | '2' | '3' | '4'
  | '5' | '6' | '7' | '8' | '9' | '_' | '-' | '.' | '@' | '#' | '%' | '&' | '*' | '+' | '/' | ':' | '<' | '=' | '>'
  | '?' | '!' | '^' | '`' | '|' | '~' | '(' | ')' | '[' | ']' | '{' | '}' | ',' | ';' | "'" | '"' | '\\' | ' ';
/** A field name or dotted path (`'year'`, `'user.id'`): any string not starting with `$`. */
export type FieldPath = `${FieldStart}${string}`;

/**
 * The operators of one field. Several in one object must all hold (`{ $gte: 1990, $lt: 2000 }`).
 * A field holding an array matches `$eq`, `$in` and the comparisons on any element. Numbers
 * compare numerically, strings by code point, booleans and null by equality; a value of another
 * type than the operand does not match (no error).
 */
export interface FieldOperators {
  /** Equal to the value (the same as writing the value itself). */
  $eq?: FilterValue;
  /** Not equal; also matches records without the field. */
  $ne?: FilterValue;
  /** Greater than (numbers or strings). */
  $gt?: number | string;
  /** Greater than or equal (numbers or strings). */
  $gte?: number | string;
  /** Less than (numbers or strings). */
  $lt?: number | string;
  /** Less than or equal (numbers or strings). */
  $lte?: number | string;
  /** Equal to one of the values. */
  $in?: ReadonlyArray<FilterValue>;
  /** Equal to none of the values; also matches records without the field. */
  $nin?: ReadonlyArray<FilterValue>;
  /** `true`: the field is present (whatever its value, null included); `false`: absent. */
  $exists?: boolean;
  /** An array field holding the value, or a string field holding the string as a substring. */
  $contains?: FilterValue;
  /** The negation of these operators; also matches records without the field. */
  $not?: FieldOperators;
}

/**
 * What a field must satisfy: a value (implicit `$eq`), an object of {@link FieldOperators}, or
 * an object of nested field names without `$` (`{ user: { id: 7 } }` means `{ 'user.id': 7 }`).
 */
export type FieldCondition = FilterValue | FieldOperators | NestedFields;

/** Nested field names (no operators) with their conditions. */
export interface NestedFields {
  [field: FieldPath]: FieldCondition;
}

/**
 * A filter over record metadata, evaluated in the core (the same on both backends), in the style
 * of MongoDB, Pinecone and Chroma:
 *
 * ```ts
 * { source: 'wordnet' }                                   // implicit $eq
 * { year: { $gte: 1990, $lt: 2000 }, 'user.id': 7 }      // every condition holds (dotted paths)
 * { $or: [{ tag: { $in: ['a', 'b'] } }, { $not: { draft: true } }] }
 * ```
 *
 * Field conditions and `$and` / `$or` / `$not` in one object must all hold; `{}` matches every
 * record. `$ne`, `$nin` and `$not` match records that lack the field (MongoDB's rule). A record
 * without metadata, or whose metadata is not an object, has no fields.
 *
 * Bounds: nesting depth at most 32, at most 1,024 operators and operand values in all. A bad
 * filter (unknown operator, wrong operand type, past a bound, or a value JSON cannot carry:
 * `undefined`, a function, a bigint, NaN, a Date, a Map...) is `HV_INVALID_ARGUMENT` whose message
 * names the offending part (`filter.year.$gte: ...`); nothing changes.
 */
export interface Filter {
  /** Every filter matches. */
  $and?: ReadonlyArray<Filter>;
  /** At least one filter matches (a non-empty array). */
  $or?: ReadonlyArray<Filter>;
  /** The filter does not match. */
  $not?: Filter;
  [field: FieldPath]: FieldCondition;
}

/** Options of `list`. */
export interface ListOptions {
  /** Only records the filter matches (default: every record). */
  filter?: Filter;
  /** Records per page: a positive integer, at most 10,000 (default 100). */
  limit?: number;
  /** The `cursor` of the previous page; absent or null for the first page. */
  cursor?: string | null;
  /** Whether records carry their vector (default `false`). */
  includeVectors?: boolean;
}

/** One record of a `list` page. */
export interface ListedRecord<M = Metadata, I extends Id = Id> {
  id: I;
  /** Its metadata, present when the record has some. */
  metadata?: M;
  /** Its vector (`dim` values), with `includeVectors: true`: a view into one buffer per page. */
  vector?: Float32Array;
}

/** One page of `list`. */
export interface ListPage<M = Metadata, I extends Id = Id> {
  /** The page's records, in insertion order. */
  records: ListedRecord<M, I>[];
  /** Pass it as `cursor` for the next page; `null` after the last page. */
  cursor: string | null;
}

/** What `importGraph` kept and dropped. */
export interface GraphImportReport {
  nodes: number;
  edges: number;
  /** `0xFFFFFFFF` entries skipped. */
  padding: number;
  selfLoops: number;
  duplicates: number;
}

/** A graph in the import/export format. */
export interface ExportedGraph<I extends Id = Id> {
  /** `ids.length × degree` neighbour ids (node numbers), row-major, `0xFFFFFFFF` padding. */
  adjacency: Uint32Array;
  degree: number;
  /** Entry node of the search. */
  entry: number;
  /** The record id of each node. */
  ids: I[];
}

/** Options of `Collection.open`. */
export interface OpenOptions {
  /**
   * Where the collection lives: `'disk'` (default; `path` is a directory, Node with the native
   * backend) or `'opfs'`: `path` is a collection name (as a {@link Database}'s: letters, digits,
   * `_` and `-`, 1 to 128 characters) in the browser's Origin Private File System, directory
   * `horosvec/<name>/`. OPFS needs sync access handles, which exist only in dedicated Web
   * Workers: open it through `horosvec/worker` (elsewhere, and under Node, `HV_UNSUPPORTED`). The
   * contract is the disk one: a write's Promise resolves once its one log frame is flushed (a
   * flush is OPFS's only sync, so `durability` is accepted and changes nothing), it survives a
   * tab crash or reload, a batch is all or nothing, and a reopen reads each sealed segment's
   * file (its index included: no rebuild; the files are read into memory whole). One open handle
   * per collection in the whole origin: a second open, in any tab or worker, is `HV_LOCKED`. A
   * full storage quota fails the write with `HV_QUOTA`, and nothing acknowledged is lost. Not
   * available: `readOnly`, `refreshIntervalMs`, `toBytes`, `buildIndex`, `importGraph`,
   * `exportGraph` (`HV_UNSUPPORTED`).
   */
  storage?: 'disk' | 'opfs';
  /** Dimension: required to create; must match the stored one when given. */
  dim?: number;
  /** Metric: used to create (default `'l2'`); must match the stored one when given. */
  metric?: Metric;
  /**
   * How vector rows are stored (see `CreateOptions.vectors`): used to create (default `'f32'`);
   * absent on a reopen, the stored precision is used; naming the other precision is
   * `HV_INVALID_ARGUMENT` and nothing on disk changes. With `'f16'` the mutable segment, the
   * segment files (2 bytes per value, read in place from their memory map) and `get()` hold the
   * values rounded to IEEE-754 half floats; a finite value beyond ±65504 is `HV_INVALID_VECTOR`
   * and nothing is written. `storage: 'opfs'` collections too: the log keeps the rounded values
   * (log format version 2) and their segment files half rows.
   */
  vectors?: 'f32' | 'f16';
  /**
   * When a write's Promise resolves: `'full'` (default) after a full sync of the log, so it
   * survives a process crash and a power loss; `'normal'` survives a process crash, a power loss
   * may lose the last writes (never corrupts); `'off'` never syncs.
   */
  durability?: 'full' | 'normal' | 'off';
  /**
   * Open without the writer's lock: searches and reads only; writes fail with `HV_READ_ONLY`.
   * The view follows the writer (any process): see `refreshIntervalMs` and `Collection.refresh`.
   */
  readOnly?: boolean;
  /**
   * A `readOnly` view's polling interval in milliseconds (default 100; `0` = no polling, only
   * `refresh()`; a number in 0..=86,400,000, else `HV_INVALID_ARGUMENT`). A background thread
   * checks the database every interval (a `PRAGMA data_version`: no I/O, nothing asked of the
   * writer) and reloads when the writer committed. An acknowledged write becomes visible within
   * max(interval, 4 × the last reload's time) + one reload: the next poll waits at least 4× the
   * last reload, so reloads under sustained writes take at most a fifth of one core. Measured
   * (bench/follow.mjs, 384-d, a quiet 2-core machine): 1,200 mutable records, visible p50 57 ms /
   * p99 111 ms after the acknowledgement (explicit `refresh()`: p50 8 ms / p99 14 ms); 20,000
   * mutable records under a commit every ~100 ms, p50 0.5 s / p99 1.25 s (reloads of ~150 ms
   * back the polling off): a smaller `maxMutableRecords` keeps readers closer. A writer ignores it (it sees its own
   * writes at once).
   */
  refreshIntervalMs?: number;
  /**
   * Seal the mutable segment once it holds this many records (default 20,000): its Vamana index
   * is built in the background, written to an immutable segment file, synced, and swapped in.
   * Until then the mutable segment is searched through an interim in-memory index (rebuilt in
   * the background as it grows) plus an exact scan of the records added since.
   */
  maxMutableRecords?: number;
  /** Merge the smallest sealed segments in the background when there are more than this (default 8). */
  maxSealedSegments?: number;
  /** Rewrite a sealed segment in the background once this fraction of its rows is deleted (default 0.2, in (0, 1]). */
  maxTombstoneRatio?: number;
  /**
   * Read every segment file whole at open and check all of it (checksums of the vectors, codes
   * and graph; every edge in range). Default `false`: open then checks headers and the small
   * sections only, so it stays instant at any size.
   */
  verify?: boolean;
}

export interface CreateOptions {
  /** Vector dimension, an integer in 1..=65536. */
  dim: number;
  /** Distance metric (default `'l2'`). */
  metric?: Metric;
  /**
   * How vector rows are stored (default `'f32'`, exactly as supplied). `'f16'`: IEEE-754 half
   * floats, 2 bytes per value instead of 4, in memory and in snapshots (`toBytes`: segment
   * images of half rows in format version 5, a record stream of them, version 4, without an
   * index); each value is rounded to nearest on write, `get()` returns the rounded value
   * widened to `Float32Array`, and distances are those of the rounded rows (queries stay f32).
   * A finite value beyond ±65504 is `HV_INVALID_VECTOR`. Any other value is `HV_INVALID_ARGUMENT`.
   * Durable collections: `OpenOptions.vectors` (on disk and with `storage: 'opfs'`).
   */
  vectors?: 'f32' | 'f16';
}

/** `I`: the collection's id type (`Collection<M, I>`), which `ids` takes. */
export interface SearchOptions<I extends Id = Id> {
  /** How many nearest records to return: a positive integer (else `HV_INVALID_ARGUMENT`). Larger than the collection returns every record. */
  k: number;
  /** Whether hits carry the record's metadata (default `true`; must be a boolean). */
  includeMetadata?: boolean;
  /**
   * ef: list size of the graph search when an index exists (default 64, raised to `k`). Larger
   * is slower and more accurate. Ignored without an index.
   */
  ef?: number;
  /**
   * How many of the best graph candidates (in estimate order) are offered to the exact rerank
   * (default: all `ef`). Candidates whose RaBitQ lower bound already exceeds the k-th exact
   * distance found are skipped, so the number of exact distances adapts to each query. Ignored
   * without an index.
   */
  rerank?: number;
  /**
   * `true`: exact flat search over every record even when an index exists. `false`: use the
   * index whenever one exists, even below the flat threshold (2,000 records, under which a flat
   * scan is as fast and exact). Default: the index from 2,000 records on.
   */
  exact?: boolean;
  /**
   * Only records whose metadata the {@link Filter} matches. The search still returns exactly
   * `min(k, matches)` hits, however few records match; with `exact: true` they are the exact top
   * k of the matches.
   */
  filter?: Filter;
  /**
   * An allow-list: only records with these ids (unknown ids are ignored). With `filter`, a record
   * must be in the list and match. At most 2²⁷ ids.
   */
  ids?: ReadonlyArray<I>;
}

/**
 * Options of `buildIndex`: a Vamana graph (Subramanya et al., DiskANN, NeurIPS 2019) walked with
 * RaBitQ codes (Gao & Long, SIGMOD 2024; Extended RaBitQ, SIGMOD 2025), with an exact rerank.
 */
export interface IndexOptions {
  /** Index kind; only `'vamana'`. */
  kind?: 'vamana';
  /**
   * R: maximum out-degree of the graph (default 32). For recall 0.99 and above, `R: 48, L: 128`
   * (README, "High recall": recall 0.998 at ef 256 on minilm384 100k, 260 walk bytes per
   * vector instead of 196, about twice the build time).
   */
  R?: number;
  /** L: list size of the build's searches (default 64; 128 for high recall, see `R`). */
  L?: number;
  /** α of RobustPrune on Euclidean distances (default 1.1; applied as α² to squared distances). */
  alpha?: number;
  /** Build passes (default 1; with 2, the first uses α = 1). */
  passes?: number;
  /**
   * Bits per dimension of the RaBitQ codes, 1..=8. Default by dimension, chosen by measurement:
   * 1 bit from 320 dimensions, 2 from 160, 4 below. Ignored under `l1`, which walks with exact
   * distances.
   */
  bits?: number;
  /** Seed of everything random in the build: same seed and data, same index. */
  seed?: number;
  /** Called with (done, total) as the build progresses. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Aborting it cancels the build (`HV_CANCELLED`; the collection keeps its previous state).
   * Under wasm the build runs synchronously, so only an abort from inside `onProgress` is seen.
   */
  signal?: AbortSignal;
}

/** One search result. */
export interface SearchHit<M = Metadata, I extends Id = Id> {
  id: I;
  /** Distance to the query under the collection's metric; lower is closer. */
  distance: number;
  /** The record's metadata, present when the record has some and `includeMetadata` is not false. */
  metadata?: M;
}

/** A stored record. */
export interface StoredRecord<M = Metadata> {
  /** The vector as it was stored (`dim` values). */
  vector: Float32Array;
  /** Its metadata, or `undefined`. */
  metadata: M | undefined;
}

/** Facts about a collection. */
export interface CollectionStats {
  size: number;
  dim: number;
  metric: Metric;
  /** Distance kernel set in use. */
  kernel: string;
  /** How vector rows are stored (`CreateOptions.vectors`). */
  vectors: 'f32' | 'f16';
  /**
   * Search code path: `'exact'` (flat scan), or the index's: `'vamana-rabitq<bits>'`,
   * `'vamana-exact'` (l1); `'segmented-vamana-rabitq<bits>'` when a durable collection has sealed
   * segments (their indexes, plus the mutable segment's interim index and exact tail). A
   * collection loaded from a version-5 snapshot reports its loaded graph's mode, unprefixed
   * (`sealedSegments` counts its loaded parts).
   */
  mode: string;
  /** Bytes of the stored vectors (rows × dim × 4, or × 2 under `vectors: 'f16'`, tombstoned rows included; rows of sealed segments are memory-mapped files, not heap). */
  vectorBytes: number;
  /** Bytes per vector the graph walk touches (codes, factors, adjacency); 0 without an index. */
  indexBytesPerVector: number;
  /** Deleted records kept as tombstones (in the index until consolidation, in sealed segments until compaction). */
  tombstones: number;
  /** Records in the mutable segment (all records of an in-memory collection). */
  mutableRecords: number;
  /** Sealed segments (durable collections; 0 otherwise). */
  sealedSegments: number;
  /**
   * Live records of the mutable segment covered by its index: for a durable collection, the interim
   * Vamana index rebuilt in the background once the segment holds 2,000 live records and a
   * quarter more arrive (later records are scanned exactly until the next rebuild or the seal);
   * for an in-memory one, the `buildIndex` index.
   */
  mutableIndexed: number;
  /**
   * Durable collections: sealed segments whose walk data (RaBitQ codes and graph adjacency) is
   * still being read into memory in the background after open. Searches work meanwhile:
   * they ask the disk for the pages they need ahead of use, so a first search after a cold open
   * costs a few tens of ms instead of one page fault at a time. 0 once warm (and for in-memory
   * collections).
   */
  warmingSegments: number;
  /**
   * How the segment searches of filtered queries ran since the collection was made or opened
   * (one count per segment searched). Each segment picks by its exact match count: an exact
   * scan of the matches up to 500 of them (always with `exact: true` or without an index);
   * a scan of the matches' RaBitQ codes with an exact rerank up to 6,000 (`codeScans`); past
   * that a two-hop walk (ACORN-1: scores only matches, routes through the others) below 30 %
   * selectivity and a plain walk keeping the matches from 30 % (`exact: false` skips both
   * scans whenever there is an index). A walk that finds fewer than `min(k, matches)` is redone
   * as an exact scan (`fallbacks`). Thresholds: `core/src/filter/strategy.rs`.
   */
  filtered: { scans: number; codeScans: number; twoHop: number; walks: number; fallbacks: number };
  /**
   * Native backend only: the Promise `search` calls since the collection was made or opened, by
   * where they ran: on the calling thread during the call (`inline`), on it after the event
   * loop's next turn (`deferred`, once inline searches took 2 ms of a turn), or on a worker
   * thread (`pool`: concurrent callers, kinds timed over 1 ms, a kind's first search). See
   * `search`.
   */
  searches?: { inline: number; deferred: number; pool: number };
  /**
   * Durable collections only: transactions committed since open, one sync each with durability
   * `'full'`. Group commit makes it smaller than the number of writes acknowledged.
   */
  commits?: number;
  /**
   * Durable collections only: most records the mutable segment holds while a background seal,
   * compaction or interim index build runs (2 × `maxMutableRecords`). Past it, further writes
   * wait (their Promises stay pending, in call order) until the seal that makes room has
   * started: memory stays bounded whatever the write rate. One batch is never split, so a single
   * batch larger than the bound is taken into an empty mutable segment.
   */
  mutableBound?: number;
  /** Durable collections only: reloads a `readOnly` view made since open (`refresh()` and polling; 0 for a writer). */
  refreshes?: number;
  /** Durable collections only: the last reload's time in milliseconds, in the core (0 before any). */
  lastRefreshMs?: number;
  backend: 'native' | 'wasm';
  /**
   * Why this process runs the wasm build (`null` on native): e.g. "no prebuilt native addon for
   * freebsd-x64", "@horosvec/linux-x64-gnu is not installed (…)", the load error's first line,
   * "HOROSVEC_FORCE_WASM=1 is set"; printed once at load under `HOROSVEC_DEBUG=1`.
   */
  backendReason: string | null;
  /** Threads used by batch search (1 under wasm). */
  threads: number;
}

/**
 * A collection of vectors with a fixed `dim` and metric: in memory (`create`, `fromBytes`) or
 * durable in a directory (`open`, Node).
 *
 * Type parameters: `M`, the metadata's type; `I`, the ids' (default `string | number`):
 * `Collection.create<Meta, number>({ dim })` takes and returns `number` ids only (`hit.id` is a
 * `number`). Both are the caller's promise about the stored records, not checked at run time
 * (`open` and `fromBytes` cannot know what was stored).
 */
export declare class Collection<M = Metadata, I extends Id = Id> {
  private constructor();
  /**
   * Creates an empty in-memory collection.
   * @throws `HV_INVALID_ARGUMENT` for a bad `dim` or an unknown metric.
   */
  static create<M = Metadata, I extends Id = Id>(options: CreateOptions): Collection<M, I>;

  /**
   * Opens the durable collection stored in directory `path` (Node, native backend only),
   * creating it when it does not exist (then `dim` is required). The directory holds a SQLite
   * database (`collection.db`, WAL mode) and a `LOCK` file; layout in `docs/format.md`.
   *
   * Every write resolves only once it is durable (see `durability`); concurrent writes are
   * committed together with one sync (group commit), and each call is all or nothing, also
   * across a crash. A write made while no other is pending, when commits have been taking at
   * most 1 ms on average, is committed on the calling thread during the call (as a synchronous
   * SQLite binding does: no hand-off to the commit thread and back) and its Promise is already
   * resolved; slower media, and the writes made in the same turn after it, go to the commit
   * thread, leaving the event loop free.
   *
   * Writes go to the mutable segment (rows in the database, loaded into memory at open). From
   * 2,000 records it is searched through an interim in-memory index, rebuilt in the background
   * as it grows and after each open for writing (a `readOnly` view builds none: it scans its
   * mutable records exactly). At `maxMutableRecords` it is sealed in the background into an
   * immutable segment file with its own Vamana index, memory-mapped, so opening never rebuilds a
   * sealed segment's index and never reads sealed rows one by one. Searches merge all segments
   * (`exact: true` is exact over all of them). Orphan files of an interrupted seal or compaction
   * are removed by the next open for writing.
   *
   * Unknown option names are rejected (`HV_INVALID_ARGUMENT`), so a misspelt one cannot be
   * silently ignored.
   *
   * @throws `HV_LOCKED` (another process or handle has it open for writing), `HV_INVALID_ARGUMENT`
   * (options differ from the stored dim/metric, or `dim` missing to create), `HV_IO` (cannot
   * create or read the directory), `HV_CORRUPT` (not a horosvec collection or damaged),
   * `HV_VERSION` (another format version of the database or a segment file), `HV_UNSUPPORTED`
   * (wasm backend without `storage: 'opfs'`; `'opfs'` outside a dedicated Web Worker or under
   * Node), `HV_QUOTA` (`'opfs'`: the origin's storage quota). A missing or damaged segment file
   * is `HV_CORRUPT`.
   */
  static open<M = Metadata, I extends Id = Id>(path: string, options?: OpenOptions): Promise<Collection<M, I>>;

  /**
   * Loads a snapshot made by `toBytes()` on either backend (Node or wasm) into a new in-memory
   * collection, with its index when the snapshot has one: graph and RaBitQ codes are installed as
   * stored, nothing is rebuilt. A snapshot of format version 5 (any indexed `f32` collection) is
   * copied once into an aligned buffer (into wasm memory, for the wasm backend) and read in
   * place: its segment images become the collection's sealed parts, with no per-record work, so
   * the loaded collection costs about the snapshot's size in memory. The caller's `bytes` are
   * not kept. Older versions (1–4) are decoded record by record (version 1, which had no codes,
   * has its codes recomputed from the vectors).
   *
   * A loaded version-5 collection takes writes: added records are kept beside the loaded parts
   * and scanned exactly (no graph) until `buildIndex`, which first moves every record into
   * memory (as a version-4 load did) and then builds one index over all of them; `importGraph`
   * and `exportGraph` move the records the same way first.
   * @throws `HV_CORRUPT` (bad magic, checksum, truncation, invalid records, out-of-range graph
   * edges, codes that do not match the vectors), `HV_VERSION` (another snapshot format version),
   * `HV_INVALID_ARGUMENT` (not a Uint8Array), `HV_OUT_OF_MEMORY` (wasm: the heap cannot hold it).
   */
  static fromBytes<M = Metadata, I extends Id = Id>(bytes: Uint8Array): Promise<Collection<M, I>>;

  /**
   * Loads the snapshot file at `path` (bytes written from `toBytes()`), as `fromBytes` does, but
   * reads the file straight into the collection's buffer: no JS copy of the bytes (native: read
   * once into an aligned buffer; the wasm build under Node: read into wasm memory). The file is
   * not kept open or mapped afterwards: it may be changed or removed. Node.js only.
   * @throws As `fromBytes`; `HV_IO` (the file cannot be opened or read), `HV_INVALID_ARGUMENT`
   * (`path` not a non-empty string), `HV_UNSUPPORTED` (browsers: fetch the bytes and use
   * `fromBytes`).
   */
  static fromFile<M = Metadata, I extends Id = Id>(path: string): Promise<Collection<M, I>>;

  /** Number of records. @throws `HV_CLOSED` after `close()`. */
  readonly size: number;
  /** Vector dimension. */
  readonly dim: number;
  /** Distance metric. */
  readonly metric: Metric;

  /**
   * Inserts records: `ids[i]` gets row i of `vectors` and `metadata[i]`. All or nothing.
   * A single id with a single vector (and a single metadata value) is accepted too.
   * @throws `HV_DUPLICATE_ID` (id already stored, or twice in the call), `HV_DIM_MISMATCH`,
   * `HV_INVALID_VECTOR` (NaN/±Infinity), `HV_INVALID_ARGUMENT`
   * (empty call, counts differ, bad id, metadata not JSON-serialisable), `HV_CLOSED`.
   */
  add(ids: I | readonly I[], vectors: Vector | VectorBatch, metadata?: M | readonly (M | undefined | null)[]): Promise<void>;
  /**
   * Inserts or replaces records (the whole record: absent metadata clears it). A replaced record
   * keeps its original insertion order for tie-breaking. All or nothing. An id twice in one call:
   * the last one wins (the earlier ones are dropped, so a new record takes the insertion order
   * of its last occurrence).
   * @throws as `add`, except that stored ids and repeated ids are allowed.
   */
  upsert(ids: I | readonly I[], vectors: Vector | VectorBatch, metadata?: M | readonly (M | undefined | null)[]): Promise<void>;
  /** Deletes records; resolves to how many existed. Unknown ids are ignored. At most 2²⁷ ids per call (`HV_INVALID_ARGUMENT`). */
  delete(ids: I | readonly I[]): Promise<number>;
  /**
   * Deletes every record the filter matches; resolves to how many were deleted. A write: ordered
   * with the other writes, all or nothing, and durable like `delete` on a collection from
   * `Collection.open`. The filter is required (`{}` deletes every record).
   * @throws `HV_INVALID_ARGUMENT` (bad or missing filter; nothing is deleted), `HV_READ_ONLY`,
   * `HV_CLOSED`.
   */
  deleteWhere(filter: Filter): Promise<number>;
  /**
   * How many records the filter matches (every record without one). Waits for the writes called
   * before it, like a search.
   * @throws `HV_INVALID_ARGUMENT` (bad filter), `HV_CLOSED`.
   */
  count(filter?: Filter): Promise<number>;
  /**
   * One page of the records the filter matches (every record without one), in insertion order:
   * stable across pages and writes, so following `cursor` until it is `null` visits every
   * record that existed throughout exactly once (for re-indexing and export). A record replaced
   * by `upsert` keeps its place. Waits for the writes called before it.
   * @throws `HV_INVALID_ARGUMENT` (bad filter, `limit` not in 1..=10,000, unknown option, a cursor
   * that `list` did not return), `HV_CLOSED`.
   */
  list(options?: ListOptions): Promise<ListPage<M, I>>;
  /** The stored record, or `undefined`. */
  get(id: I): StoredRecord<M> | undefined;

  /**
   * The `k` nearest records, best first (ties: earlier-inserted first). Exact without an index;
   * with one, approximate (see `ef`), and the returned distances are still exact. With `filter`
   * or `ids`, only matching records, and exactly `min(k, matches)` hits. Natively it runs on a
   * worker thread, except a search of a kind timed under 1 ms with no other search pending: that
   * one runs on the calling thread (no thread hop), at most 2 ms of them per event-loop turn.
   * @throws `HV_INVALID_ARGUMENT` (bad `k`, bad filter or ids, an unknown option name),
   * `HV_DIM_MISMATCH`, `HV_INVALID_VECTOR`, `HV_CLOSED`.
   */
  search(query: Vector, options: SearchOptions<I>): Promise<SearchHit<M, I>[]>;
  /** As `search`, on the calling thread. */
  searchSync(query: Vector, options: SearchOptions<I>): SearchHit<M, I>[];
  /**
   * Search for several queries at once (a flat `n × dim` array or an array of vectors); one
   * result list per query, in order, with the same options and code path as `search` (exact
   * without an index or with `exact: true`, else through the index). Exact batches read each
   * stored row once per chunk of queries; indexed ones run the queries in parallel natively.
   */
  searchBatch(queries: VectorBatch, options: SearchOptions<I>): Promise<SearchHit<M, I>[][]>;

  /**
   * Builds (or rebuilds) the approximate index over the current records. Searches go on while it
   * builds (natively it runs on worker threads); writes called meanwhile wait for it. Afterwards
   * `search` walks the graph (unless `exact: true`, or the collection has under 2,000 records),
   * `add`/`upsert` insert into the graph, and `delete` leaves tombstones that are consolidated
   * once they pass 10 % of the records.
   * @throws `HV_INVALID_ARGUMENT` (bad option), `HV_CANCELLED`, `HV_CLOSED`.
   */
  buildIndex(options?: IndexOptions): Promise<void>;

  /** Facts about the collection. */
  stats(): CollectionStats;
  /**
   * Installs an index whose graph was built elsewhere (e.g. cuVS CAGRA on a GPU): `adjacency` is
   * `n × degree` neighbour ids, row-major, padded with `0xFFFFFFFF`, where node `i` is the
   * collection's `i`-th record in insertion order and `n` its size. Padding, self loops and
   * repeated neighbours are skipped and counted; `entry` defaults to the record nearest the
   * centroid; R becomes `degree`; the RaBitQ codes are computed from the records. Replaces any
   * index. `exportGraph` writes the same format.
   * @throws `HV_INVALID_ARGUMENT` (length not `n × degree`, a neighbour or entry ≥ n, empty
   * collection, bad option); nothing changes.
   */
  importGraph(graph: { adjacency: Uint32Array; degree: number; entry?: number } & Omit<IndexOptions, 'R' | 'onProgress' | 'signal'>): Promise<GraphImportReport>;

  /**
   * The index graph as `ids.length × degree` neighbour ids (row-major, `0xFFFFFFFF` padding) over
   * the records in insertion order, the entry node and each node's id. Tombstones are
   * consolidated first. @throws `HV_INVALID_ARGUMENT` without an index, `HV_UNSUPPORTED` on a
   * durable collection with sealed segments (each has its own graph; `importGraph` likewise).
   */
  exportGraph(): Promise<ExportedGraph<I>>;

  /**
   * Durable collections: seals the mutable segment now, after the writes issued before the call
   * (its Vamana index is built on the thread pool, the segment file written, synced and swapped
   * in; searches go on meanwhile). Resolves to the number of records sealed (0 when the mutable
   * segment is empty). @throws `HV_UNSUPPORTED` (in-memory collection), `HV_READ_ONLY`, `HV_IO`.
   */
  seal(): Promise<number>;

  /**
   * Durable collections: merges every sealed segment into one, dropping deleted rows (a new
   * index over the live rows; memory: those rows). Resolves to the number of segments merged
   * (0 when there is nothing to gain). @throws as `seal`.
   */
  compact(): Promise<number>;

  /**
   * A `readOnly` view: reloads it now if the writer committed since its last load, and resolves
   * to `true` when it loaded something new (`false` when nothing changed, on a writer, which
   * sees its own writes at once, and on an in-memory or wasm collection). Once it resolves, every
   * write acknowledged to the writer before the call is visible. Never a partial batch: a reload
   * reads the manifest and the records in one read transaction, so the view moves from one
   * committed state to a later one, and each write call (an `add` of many records, a
   * `deleteWhere`) is wholly visible or not at all. Cost: a check without a change is a
   * `PRAGMA data_version` (microseconds); a reload maps the new segment files only (sealed
   * segments are reused) and reads the mutable records again in full (no incremental log), so it
   * grows with the mutable segment: about 5 µs per mutable record with the writer idle (20,000:
   * 95 ms), 2–4× that while the writer builds indexes, and it holds the old and new records at
   * once until the swap. An index built on the view with `buildIndex` is dropped by a reload.
   * Searches run during the reload on the previous state and wait only for the swap; the writer
   * is never blocked.
   * @throws `HV_CLOSED`; `HV_IO` / `HV_CORRUPT` (the view keeps its previous state).
   */
  refresh(): Promise<boolean>;

  /**
   * A versioned binary snapshot (format `HVSNAP01`, `docs/format.md`). A collection with an
   * index or with sealed segments writes version 5: each sealed segment as its file's bytes
   * (with its graph and codes) plus its deleted rows, the index of an in-memory collection as one
   * more segment image (tombstones consolidated first), and records outside any index as a
   * record stream; it loads in place (`f32` or `f16` rows, as stored). A collection without an
   * index writes version 3 (every record, the metadata index of the records), or version 4 for
   * `f16` rows (half-precision rows). Loads with `Collection.fromBytes` / `fromFile` on either
   * backend.
   */
  toBytes(): Promise<Uint8Array>;

  /** Releases the collection; every later call throws `HV_CLOSED`. Closing twice is allowed. */
  close(): Promise<void>;
}

// ---- Named collections (npm/lib/database.js) ----

/**
 * The codes a {@link Database} raises: every {@link ErrorCode}, plus `HV_ALREADY_EXISTS`
 * (raised by the JS layer only, not by the core): `createCollection` named a collection that
 * exists, or one whose name differs from an existing one only by letter case. The same as
 * {@link HorosvecErrorCode}.
 */
export type DatabaseErrorCode = HorosvecErrorCode;

/** Options of `openDatabase`. */
export interface DatabaseOptions {
  /**
   * Open every collection with `readOnly: true`; `createCollection` and `dropCollection` fail
   * `HV_READ_ONLY`; `listCollections` lists what exists now (each call reads the directory).
   */
  readOnly?: boolean;
  /** Default `durability` of every collection the database opens (see {@link OpenOptions}); durable databases only. */
  durability?: OpenOptions['durability'];
  /** Defaults of every collection the database opens (see {@link OpenOptions}); durable databases only. */
  maxMutableRecords?: number;
  maxSealedSegments?: number;
  maxTombstoneRatio?: number;
  verify?: boolean;
  /** How often the read-only views of a `readOnly` database poll for the writer's commits (see {@link OpenOptions}; writers ignore it). */
  refreshIntervalMs?: number;
}

/** Options of `db.createCollection`: `dim` and `metric`, and for a durable database any {@link OpenOptions} but `readOnly`. */
export interface CreateCollectionOptions extends Omit<OpenOptions, 'readOnly' | 'dim'> {
  /** Vector dimension, an integer in 1..=65536 (required). */
  dim: number;
  /** Distance metric (default `'l2'`). */
  metric?: Metric;
}

/** One entry of `db.listCollections()`. */
export interface CollectionInfo {
  name: string;
  dim: number;
  metric: Metric;
}

/**
 * Named collections. A durable database (`openDatabase(dir)`, Node native) is a directory
 * holding one subdirectory per collection, each a normal `Collection.open` directory
 * (`dir/<name>/collection.db`…), so `Collection.open(join(dir, name))` opens one directly.
 * Hidden entries `dir/.tmp-*` and `dir/.drop-*` are a create or drop in progress (or one a crash
 * interrupted; the next writable open removes them). An in-memory database (`openDatabase()`,
 * both backends) holds `Collection.create` collections and loses them at exit.
 *
 * Names match `^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$` (else `HV_INVALID_ARGUMENT`) and are
 * case-sensitive, but a name that differs only by letter case from an existing one is refused
 * (`HV_ALREADY_EXISTS`): macOS and Windows file systems fold case, so `Docs` and `docs` would be
 * one directory there.
 *
 * Crash safety: `createCollection` builds the collection under a temporary name and renames it
 * into place; `dropCollection` renames it out of the name space (atomically) before removing
 * its files. A process killed at any point leaves either the whole collection or none, and the
 * database opens.
 *
 * The database's own calls run one after another; each collection handle is the usual
 * {@link Collection} (one writer per collection across processes: `HV_LOCKED`). After
 * `close()` every call fails `HV_CLOSED`.
 */
export interface Database {
  /** The absolute directory of a durable database; `null` in memory. */
  readonly path: string | null;
  /** Whether the database was opened with `readOnly: true`. */
  readonly readOnly: boolean;
  /**
   * Creates the collection `name` and resolves to its open handle (the one `collection(name)`
   * returns afterwards). @throws `HV_ALREADY_EXISTS` (it exists, or differs only by case from
   * one that does), `HV_INVALID_ARGUMENT` (bad name, missing `dim`, bad options),
   * `HV_READ_ONLY`, `HV_IO`, `HV_CLOSED`.
   */
  createCollection<M = Metadata, I extends Id = Id>(name: string, options: CreateCollectionOptions): Promise<Collection<M, I>>;
  /**
   * The open handle of an existing collection: opened on first use (read-only in a readOnly
   * database), the same handle on every later call. A durable handle the caller closed is opened
   * again; an in-memory one stays closed (closing it released its records: use `dropCollection`
   * to remove a collection). @throws `HV_NOT_FOUND` (no collection of
   * exactly that name), `HV_INVALID_ARGUMENT` (bad name), `HV_LOCKED`, `HV_CLOSED`.
   */
  collection<M = Metadata, I extends Id = Id>(name: string): Promise<Collection<M, I>>;
  /** Every collection, sorted by name (code-unit order). @throws `HV_IO`, `HV_CLOSED`. */
  listCollections(): Promise<CollectionInfo[]>;
  /**
   * Closes the collection's handle (later calls on it fail `HV_CLOSED`) and deletes the
   * collection with its records. @throws `HV_NOT_FOUND`, `HV_READ_ONLY`, `HV_LOCKED` (another
   * process has it open for writing; nothing is deleted), `HV_IO`, `HV_CLOSED`.
   */
  dropCollection(name: string): Promise<void>;
  /** Closes every collection the database opened; later calls fail `HV_CLOSED`. Closing twice is allowed. */
  close(): Promise<void>;
}

/**
 * Opens (creating it if absent, unless `readOnly`) the database in directory `dir`: named
 * durable collections (Node, native backend; the wasm build fails `HV_UNSUPPORTED`). Without
 * `dir`, an in-memory database on either backend. Leftovers of an interrupted create or drop
 * are removed at a writable open. @throws `HV_INVALID_ARGUMENT` (bad options), `HV_IO` (a
 * readOnly open of a missing directory, an unwritable path), `HV_UNSUPPORTED`.
 */
export declare function openDatabase(dir?: string, options?: DatabaseOptions): Promise<Database>;

declare const _default: {
  Collection: typeof Collection;
  backend: typeof backend;
  kernel: typeof kernel;
  version: typeof version;
  openDatabase: typeof openDatabase;
  HorosvecError: typeof HorosvecError;
  isHorosvecError: typeof isHorosvecError;
};
export default _default;
