// The Web Worker script of `horosvec/worker` in browsers (a module worker): the wasm build.
// The listener is attached before the build loads (browser.js awaits the .wasm fetch), and the
// messages that arrive meanwhile are served once it has loaded.
import { serve } from './worker-serve.js';

const early = [];
let onMessage = (data) => early.push(data);
self.addEventListener('message', (e) => onMessage(e.data));
import('../browser.js').then(
  (api) => {
    onMessage = serve(api, self);
    for (const m of early.splice(0)) onMessage(m);
  },
  (e) => {
    const code = typeof e?.code === 'string' ? e.code : 'HV_IO';
    const message = String(e?.message ?? e).replace(/^HV_[A-Z_]+: /, '');
    onMessage = (m) => { if (m && m.op !== 'cancel') self.postMessage({ id: m.id, ok: false, code, message }); };
    for (const m of early.splice(0)) onMessage(m);
  },
);
