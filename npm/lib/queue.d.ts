// Types of the call queue (internal to the package; used by its tests).

/** When one collection's calls start (see queue.js for the rules). */
export declare class CallQueue {
  constructor(options?: { immediate?: boolean; groupCommit?: boolean });
  /** `operation` returns its Promise, or its result itself when it finished synchronously. */
  run<T>(operation: () => Promise<T> | T, options?: { kind?: 'read' | 'write' | 'build'; copyInputs?: () => void }): Promise<T>;
  drain(): Promise<unknown>;
}

/** Pending answers of ticketed durable writes. */
export declare class TicketBook {
  constructor(toError: (message: string) => Error);
  readonly size: number;
  wait(ticket: number): Promise<number>;
  settle(batch: { ok: ArrayLike<number>; failed: ArrayLike<number>; errors: ArrayLike<string> }): void;
}
