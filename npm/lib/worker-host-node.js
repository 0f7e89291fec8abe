// The worker_threads script of `horosvec/worker` under Node: the `horosvec` entry (the native
// addon, else wasm; HOROSVEC_FORCE_WASM=1 in the spawning process's environment forces wasm).
import { parentPort } from 'node:worker_threads';
import * as api from '../node.js';
import { serve } from './worker-serve.js';

// test hook: with HOROSVEC_WORKER_TEST_HOOKS=1 the request 'exit' ends the thread abruptly
const hooks = process.env.HOROSVEC_WORKER_TEST_HOOKS === '1';
const onMessage = serve(api, parentPort, { exit: hooks ? () => process.exit(3) : undefined });
parentPort.on('message', onMessage);
