// Types of the search dispatcher (internal to the package; used by its tests).

/** A search predicted slower than this (ms) never runs on the calling thread. */
export declare const INLINE_MS: number;
/** Inline searches stop for the rest of an event-loop turn once they have taken this long (ms). */
export declare const TURN_MS: number;

/** Where one search runs (see search-dispatch.js for the rules). */
export declare function placeSearch(
  state: { estimateMs: number | undefined; poolPending: number; inlineThisTick: boolean; turnMs: number },
  budgets?: { inlineMs?: number; turnMs?: number },
): 'inline' | 'defer' | 'pool';

/** Runs Promise searches inline, deferred or on the pool, and keeps their cost estimates. */
export declare class SearchDispatcher<Q extends Float32Array = Float32Array, O extends object = object, R = unknown> {
  constructor(calls: {
    runSync: (q: Q, o: O) => R;
    runAsync: (q: Q, o: O) => Promise<R>;
    size: () => number;
    budgets?: { inlineMs?: number; turnMs?: number };
    now?: () => number;
    onTurnEnd?: (f: () => void) => void;
  });
  /** Searches made so far by where they ran (a copy). */
  readonly counts: { inline: number; deferred: number; pool: number };
  /** Searches pending on the pool or deferred. */
  readonly pending: number;
  /** The hits when the search ran inline (a throw on failure), else a Promise of them. */
  search(query: Q, options: O): R | Promise<R>;
}
