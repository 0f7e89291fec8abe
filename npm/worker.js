// `horosvec/worker` in browsers: the Collection API with every collection in one module Web
// Worker (lib/worker-host-browser.js, located with new URL(..., import.meta.url), which Vite and
// webpack follow and emit). See lib/worker-client.js.
import { hvError } from './lib/errors.js';
import { makeWorkerApi } from './lib/worker-client.js';

const api = makeWorkerApi(({ onMessage, onFailure }) => {
  if (typeof Worker !== 'function') throw hvError('HV_UNSUPPORTED', 'horosvec/worker needs Web Workers (this environment has no Worker)');
  // tests only: globalThis.__HOROSVEC_WORKER_TEST_HOOKS__ = true before the worker starts lets
  // the request 'exit' end it from inside (self.close())
  const name = globalThis.__HOROSVEC_WORKER_TEST_HOOKS__ === true ? 'horosvec-test-hooks' : 'horosvec';
  const w = new Worker(new URL('./lib/worker-host-browser.js', import.meta.url), { type: 'module', name });
  // A Worker has no exit event: a worker that ends without an error event (self.close(), killed,
  // out of memory) is seen through a Web Lock it takes and holds for as long as it lives, which
  // this side then asks for: granted = the worker has ended. (MessagePort has no 'close' event
  // in Chromium.) Without navigator.locks (not a secure context), such an end goes unseen.
  const locks = typeof navigator === 'object' ? navigator.locks : undefined;
  const watch = locks ? `horosvec-worker-${Math.random().toString(36).slice(2)}-${Date.now()}` : null;
  w.addEventListener('message', (e) => {
    if (e.data?.op === 'watching' && watch) {
      locks.request(watch, () => onFailure('the worker ended')).catch(() => {});
      return;
    }
    onMessage(e.data);
  });
  w.addEventListener('error', (e) => {
    e.preventDefault?.();
    onFailure(e.message || 'the worker script failed');
  });
  w.addEventListener('messageerror', () => onFailure('a message from the worker could not be read'));
  if (watch) w.postMessage({ op: 'watch', name: watch });
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
