// Typings of lib/worker-client.js for the tests (tests-js/worker.test.ts); not a public entry.
export declare const rawRequest: WeakMap<object, { request(msg: { op: string; name?: string; handle?: number; args?: unknown[] }): Promise<unknown>; alive(): boolean }>;
export declare function makeWorkerApi(spawn: (hooks: { onMessage(data: unknown): void; onFailure(why: string): void }) => { post(msg: unknown, transfer?: Transferable[]): void; terminate(): unknown }): unknown;
