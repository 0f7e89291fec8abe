// `horosvec/worker` in browsers: the Collection API with every collection in one module Web
// Worker (lib/worker-host-browser.js, located with new URL(..., import.meta.url), which Vite and
// webpack follow and emit). See lib/worker-client.js.
import { hvError } from './lib/errors.js';
import { makeWorkerApi } from './lib/worker-client.js';

const api = makeWorkerApi(({ onMessage, onFailure }) => {
  if (typeof Worker !== 'function') throw hvError('HV_UNSUPPORTED', 'horosvec/worker needs Web Workers (this environment has no Worker)');
  const w = new Worker(new URL('./lib/worker-host-browser.js', import.meta.url), { type: 'module' });
  w.addEventListener('message', (e) => onMessage(e.data));
  w.addEventListener('error', (e) => {
    e.preventDefault?.();
    onFailure(e.message || 'the worker script failed');
  });
  w.addEventListener('messageerror', () => onFailure('a message from the worker could not be read'));
  return { post: (m, t) => w.postMessage(m, t), terminate: () => w.terminate() };
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
