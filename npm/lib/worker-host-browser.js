// The Web Worker script of `horosvec/worker` in browsers (a module worker): the wasm build.
// The listener is attached before the build loads (browser.js awaits the .wasm fetch), and the
// messages that arrive meanwhile are served once it has loaded. The first message, { op:
// 'watch', name }, names a Web Lock that this worker takes and holds for as long as it lives
// (then answers { op: 'watching' }): the page asks for it too, and is granted it when this worker
// ends, however it ends.
import { serve } from './worker-serve.js';

const early = [];
let onMessage = (data) => early.push(data);
// test hook: a worker named 'horosvec-test-hooks' ends on the request 'exit' (self.close())
const hooks = self.name === 'horosvec-test-hooks';
self.addEventListener('message', (e) => {
  if (e.data?.op === 'watch') {
    navigator.locks.request(e.data.name, () => {
      self.postMessage({ op: 'watching' });
      return new Promise(() => {}); // held until this worker ends
    });
  } else onMessage(e.data);
});
import('../browser.js').then(
  (api) => {
    onMessage = serve(api, self, { exit: hooks ? () => self.close() : undefined });
    for (const m of early.splice(0)) onMessage(m);
  },
  (e) => {
    const code = typeof e?.code === 'string' ? e.code : 'HV_IO';
    const message = String(e?.message ?? e).replace(/^HV_[A-Z_]+: /, '');
    onMessage = (m) => { if (m && m.op !== 'cancel') self.postMessage({ id: m.id, ok: false, code, message }); };
    for (const m of early.splice(0)) onMessage(m);
  },
);
