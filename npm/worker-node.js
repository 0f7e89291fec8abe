// `horosvec/worker` under Node: the Collection API with every collection in one worker_thread
// (lib/worker-host-node.js, which loads `horosvec`: the native addon, else wasm). See
// lib/worker-client.js. The thread is unref'd while no call is pending, so open collections do
// not keep the process alive.
import { Worker } from 'node:worker_threads';
import { makeWorkerApi } from './lib/worker-client.js';

const api = makeWorkerApi(({ onMessage, onFailure }) => {
  const w = new Worker(new URL('./lib/worker-host-node.js', import.meta.url));
  let ended = false;
  const end = (why) => {
    if (ended) return;
    ended = true;
    onFailure(why);
  };
  w.on('message', onMessage);
  w.on('error', (e) => end(`it threw ${e?.message ?? e}`));
  w.on('messageerror', () => end('a message from the worker could not be read'));
  w.on('exit', (code) => end(`it exited with code ${code}`));
  return {
    post: (m, t) => w.postMessage(m, t),
    terminate: () => {
      ended = true;
      return w.terminate();
    },
    ref: () => w.ref(),
    unref: () => w.unref(),
  };
});

export const Collection = api.Collection;
export const openDatabase = api.openDatabase;
export const terminate = api.terminate;
export const HorosvecError = api.HorosvecError;
export const isHorosvecError = api.isHorosvecError;
export const backend = api.backend;
export const kernel = api.kernel;
export const version = api.version;
export default { Collection, openDatabase, terminate, HorosvecError, isHorosvecError, backend, kernel, version };
