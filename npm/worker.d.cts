// Generated from worker.d.ts by scripts/gen-dcts.mjs: do not edit (the CommonJS
// copy of the typings, for `require` and `module: node16` CommonJS projects).
/**
 * `horosvec/worker`: the {@link Collection} API with every collection (and database) living in
 * one worker: a module Web Worker in browsers, a `worker_thread` under Node. The calling thread
 * never runs the index; each call is a message to the worker and every method returns a Promise.
 *
 * Differences from the main entry (`horosvec`), all because nothing can be synchronous across a
 * worker:
 * - `Collection.create` returns a `Promise` (the main entry's is synchronous); `fromBytes` and
 *   `open` are Promises as before.
 * - `size` is a method returning `Promise<number>` (the main entry's is a property); `stats()`
 *   and `get(id)` return Promises; there is no `searchSync` (use `search`).
 * - `dim` and `metric` stay synchronous properties (known when the collection is made).
 * - `backend`, `kernel` and `version` are async functions (the worker's build; calling one
 *   starts the worker), not constants.
 * - `terminate()` (this entry only) ends the worker now.
 * - Vectors: a `Float32Array` argument is copied into a fresh buffer, which is *transferred*
 *   (not cloned again) to the worker: the caller's array is never detached and may be reused as
 *   soon as the call returns. `fromBytes(bytes)` copies the bytes the same way. Other inputs
 *   (number arrays, arrays of vectors, metadata, filters) are structured-cloned; a value that
 *   cannot be cloned (a function in metadata) rejects with `HV_INVALID_ARGUMENT`. Typed-array results
 *   owning their whole buffer (`toBytes()`'s bytes, `exportGraph()`'s arrays) are transferred
 *   back, not copied; the rest (`list`'s vector views into one page buffer) are structured-cloned.
 * - Progress ({@link WorkerProgress}): `fromBytes(bytes, { onProgress })`, `add` / `upsert(ids,
 *   vectors, metadata, { onProgress })` and `buildIndex({ onProgress })` get events sent by the
 *   worker, `(done, total, phase)`, on the calling thread (what the callback throws is ignored).
 * - `buildIndex({ onProgress, signal })`: aborting the signal
 *   sends a cancel message. With the wasm build in the worker the build runs on the worker's
 *   only thread, so an abort is seen only when the build has finished (the native build polls
 *   it and stops early, rejecting with `HV_CANCELLED`).
 *
 * Lifecycle: the worker starts on the first call and ends when the last open collection or
 * database is closed (once no call is pending), or on {@link terminate}. A worker that dies
 * (crashes, exits, or is terminated; in browsers also one that ends without an error event, as
 * by `self.close()` or being killed, seen through a Web Lock it holds while it lives, where
 * `navigator.locks` exists) rejects every pending call with `HV_WORKER_FAILED`; the
 * handles it held then reject with `HV_WORKER_FAILED` too. A call on a closed handle rejects
 * with `HV_CLOSED`, as in the main entry. Errors keep their `code` and message: they are
 * {@link HorosvecError}s made again on the calling thread (the original's `cause` and stack stay
 * in the worker).
 *
 * Under Node the worker loads `horosvec` (the native addon, else wasm; `HOROSVEC_FORCE_WASM=1`
 * in the environment when the worker starts forces wasm); in browsers the wasm build. The
 * worker_thread is unref'd while no call is pending, so open collections do not keep a process
 * alive.
 */
import type {
  CollectionStats, CreateOptions, CollectionInfo, CreateCollectionOptions, DatabaseOptions, ExportedGraph, Filter, GraphImportReport,
  Id, IndexOptions, ListOptions, ListPage, Metadata, Metric, OpenOptions, SearchHit, SearchOptions, StoredRecord, Vector, VectorBatch,
} from './index.cjs';
import { HorosvecError, isHorosvecError } from './index.cjs';

export { HorosvecError, isHorosvecError };
export type * from './index.cjs';

/** The worker's build (`'native'` or `'wasm'`); starts the worker. */
export declare function backend(): Promise<'native' | 'wasm'>;
/** The worker's distance kernel set; starts the worker. */
export declare function kernel(): Promise<string>;
/** The package version the worker runs; starts the worker. */
export declare function version(): Promise<string>;

/**
 * Ends the worker now: pending calls reject with `HV_WORKER_FAILED`, and so do later calls on
 * the collections and databases it held; the next `create`/`open`/`fromBytes`/`openDatabase`
 * starts a new worker.
 */
export declare function terminate(): Promise<void>;

/**
 * What a {@link WorkerProgress} event is about, and its unit:
 * - `'decode'`: `fromBytes` decoding the snapshot, in bytes (of `bytes.byteLength`);
 * - `'write'`: an `add` or `upsert` batch being written, in records (of the batch's count);
 * - `'build'`: `buildIndex`, the core's build steps (as the main entry's `onProgress`).
 * `'decode'` and `'write'` are one step of the core each: an event when the worker starts it
 * (`done` 0, while it runs) and one when it has finished (`done === total`); a call that fails
 * sends no end event (it rejects). `'build'` events come about every 1 % of the build.
 */
export type WorkerProgressPhase = 'decode' | 'write' | 'build';
/** A progress callback of `horosvec/worker`: `done` of `total` (fraction `done / total`) in `phase`. */
export type WorkerProgress = (done: number, total: number, phase: WorkerProgressPhase) => void;
/** The options of `fromBytes`, `add` and `upsert` in `horosvec/worker`. */
export interface WorkerProgressOptions {
  /** Called on the calling thread with the worker's progress events; must be a function (else `HV_INVALID_ARGUMENT`). */
  onProgress?: WorkerProgress;
}
/** `buildIndex` options in `horosvec/worker`: the main entry's, with a {@link WorkerProgress} callback. */
export type WorkerIndexOptions = Omit<IndexOptions, 'onProgress'> & { onProgress?: WorkerProgress };

/** A {@link Collection} living in the worker: the same methods, all asynchronous (see the module's notes). */
export declare class WorkerCollection<M = Metadata, I extends Id = Id> {
  private constructor();
  /** Like `Collection.create`, but a Promise. */
  static create<M = Metadata, I extends Id = Id>(options: CreateOptions): Promise<WorkerCollection<M, I>>;
  /**
   * Like `Collection.open`: a directory under Node with the native addon; in browsers
   * `{ storage: 'opfs' }`, a durable collection in the Origin Private File System, run in the
   * worker (HV_UNSUPPORTED elsewhere).
   */
  static open<M = Metadata, I extends Id = Id>(path: string, options?: OpenOptions): Promise<WorkerCollection<M, I>>;
  /** Like `Collection.fromBytes`; the caller's bytes are copied (never detached). Progress: phase `'decode'`. */
  static fromBytes<M = Metadata, I extends Id = Id>(bytes: Uint8Array, options?: WorkerProgressOptions): Promise<WorkerCollection<M, I>>;
  /** Like `Collection.fromFile`: the worker reads the file (Node.js; `HV_UNSUPPORTED` in browsers). */
  static fromFile<M = Metadata, I extends Id = Id>(path: string): Promise<WorkerCollection<M, I>>;
  /** Vector dimension (synchronous). */
  readonly dim: number;
  /** Distance metric (synchronous). */
  readonly metric: Metric;
  /** Number of live records (the main entry's `size` property, as a method). */
  size(): Promise<number>;
  /** Like `add`; `options.onProgress` gets phase `'write'` events (pass `undefined` metadata to give options alone). */
  add(ids: I | readonly I[], vectors: Vector | VectorBatch, metadata?: M | readonly (M | undefined | null)[], options?: WorkerProgressOptions): Promise<void>;
  /** Like `upsert`; `options.onProgress` gets phase `'write'` events. */
  upsert(ids: I | readonly I[], vectors: Vector | VectorBatch, metadata?: M | readonly (M | undefined | null)[], options?: WorkerProgressOptions): Promise<void>;
  delete(ids: I | readonly I[]): Promise<number>;
  deleteWhere(filter: Filter): Promise<number>;
  count(filter?: Filter): Promise<number>;
  list(options?: ListOptions): Promise<ListPage<M, I>>;
  get(id: I): Promise<StoredRecord<M> | undefined>;
  search(query: Vector, options: SearchOptions<I>): Promise<SearchHit<M, I>[]>;
  searchBatch(queries: VectorBatch, options: SearchOptions<I>): Promise<SearchHit<M, I>[][]>;
  /** `onProgress` runs on the calling thread (forwarded, phase `'build'`); `signal` is forwarded as a cancel message. */
  buildIndex(options?: WorkerIndexOptions): Promise<void>;
  stats(): Promise<CollectionStats>;
  importGraph(graph: { adjacency: Uint32Array; degree: number; entry?: number } & Omit<IndexOptions, 'R' | 'onProgress' | 'signal'>): Promise<GraphImportReport>;
  exportGraph(): Promise<ExportedGraph<I>>;
  seal(): Promise<number>;
  compact(): Promise<number>;
  refresh(): Promise<boolean>;
  toBytes(): Promise<Uint8Array>;
  /** Closes it; closing the last open collection or database ends the worker. */
  close(): Promise<void>;
}

/** This entry's `Collection` is a {@link WorkerCollection}. */
export declare const Collection: typeof WorkerCollection;
export type Collection<M = Metadata, I extends Id = Id> = WorkerCollection<M, I>;

/** A `Database` living in the worker; its collections are {@link WorkerCollection}s. */
export interface WorkerDatabase {
  readonly path: string | null;
  readonly readOnly: boolean;
  createCollection<M = Metadata, I extends Id = Id>(name: string, options: CreateCollectionOptions): Promise<WorkerCollection<M, I>>;
  collection<M = Metadata, I extends Id = Id>(name: string): Promise<WorkerCollection<M, I>>;
  listCollections(): Promise<CollectionInfo[]>;
  dropCollection(name: string): Promise<void>;
  /** Closes it; closing the last open collection or database ends the worker. */
  close(): Promise<void>;
}

/** Like the main entry's `openDatabase`, in the worker. */
export declare function openDatabase(dir?: string, options?: DatabaseOptions): Promise<WorkerDatabase>;

declare const _default: {
  Collection: typeof WorkerCollection;
  openDatabase: typeof openDatabase;
  terminate: typeof terminate;
  HorosvecError: typeof HorosvecError;
  isHorosvecError: typeof isHorosvecError;
  backend: typeof backend;
  kernel: typeof kernel;
  version: typeof version;
};
export default _default;
