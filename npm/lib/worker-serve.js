// The worker side of `horosvec/worker`: serves the requests of `worker-client.js` over one
// message port with the real API (`api`, the entry's exports), so the index runs here, never on
// the calling thread. Protocol (structured-clone messages):
//   in:  { id, op: 'static', name, args }     Collection.create/fromBytes/fromFile/open, openDatabase, info
//        { id, op: 'call', handle, name, args } a method of a collection or database handle
//        { op: 'cancel', id }                   abort the buildIndex of request `id`
//   out: { id, ok: true, value }  |  { id, ok: false, code, message }
//        { id, progress: [done, total, phase] } progress of request `id`, sent when it has
//                                               `progress: true` (fromBytes, add, upsert: phase
//                                               'decode' / 'write', at its start and its end) or
//                                               buildIndex({ onProgress }) (phase 'build')
// Collections and databases stay here; the caller gets { $handle, kind, ... } descriptors.
// Typed arrays in results that own their whole buffer (toBytes, exportGraph) are transferred.

export function serve(api, port, { exit } = {}) {
  const handles = new Map();
  const aborts = new Map();
  let next = 1;

  const describe = (v) => {
    if (v instanceof api.Collection) {
      const h = next++;
      handles.set(h, v);
      return { $handle: h, kind: 'collection', dim: v.dim, metric: v.metric };
    }
    if (v !== null && typeof v === 'object' && typeof v.createCollection === 'function' && typeof v.listCollections === 'function') {
      const h = next++;
      handles.set(h, v);
      return { $handle: h, kind: 'database', path: v.path, readOnly: v.readOnly };
    }
    return v;
  };

  const transfers = (v, out = []) => {
    if (ArrayBuffer.isView(v)) {
      if (v.byteOffset === 0 && v.byteLength === v.buffer.byteLength && !out.includes(v.buffer)) out.push(v.buffer);
    } else if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') transfers(x, out);
    } else if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      for (const x of Object.values(v)) if (x !== null && typeof x === 'object') transfers(x, out);
    }
    return out;
  };

  const reply = (id, value) => {
    // a Buffer (native toBytes) may share a pooled ArrayBuffer: send a plain copy of it
    const v = value instanceof Uint8Array && value.constructor !== Uint8Array ? Uint8Array.from(value) : value;
    port.postMessage({ id, ok: true, value: v }, transfers(v));
  };
  const fail = (id, e) => {
    const coded = api.isHorosvecError(e);
    const code = coded ? e.code : 'HV_INTERNAL';
    const text = String(e?.message ?? e);
    const message = coded && text.startsWith(`${code}: `) ? text.slice(code.length + 2) : text;
    port.postMessage({ id, ok: false, code, message });
  };

  const progress = (id, done, total, phase) => port.postMessage({ id, progress: [done, total, phase] });
  // A call done in one step of the core (a snapshot's decoding, a batch's write): its start and
  // its end, as progress events (the start arrives while the call runs). Units: bytes, records.
  const stepped = async (msg, phase, total, call) => {
    if (msg.progress !== true) return call();
    progress(msg.id, 0, total, phase);
    const v = await call();
    progress(msg.id, total, total, phase);
    return v;
  };
  const records = (ids) => (Array.isArray(ids) ? ids.length : 1);

  const run = async (msg) => {
    const { id, op, name, args = [] } = msg;
    if (op === 'static') {
      if (name === 'info') return { backend: api.backend, kernel: api.kernel, version: api.version };
      if (name === 'exit' && exit) return exit();
      if (name === 'openDatabase') return api.openDatabase(...args);
      if (name === 'fromBytes') return stepped(msg, 'decode', args[0]?.byteLength ?? 0, () => api.Collection.fromBytes(...args));
      if (name === 'create' || name === 'open' || name === 'fromFile') return api.Collection[name](...args);
      throw api.HorosvecError ? new api.HorosvecError('HV_INVALID_ARGUMENT', `unknown worker request ${name}`) : new Error(name);
    }
    const target = handles.get(msg.handle);
    if (target === undefined) throw new api.HorosvecError('HV_CLOSED', 'the collection is closed');
    if (name === 'close') {
      handles.delete(msg.handle);
      return target.close();
    }
    if (name === 'size') return target.size;
    if (name === 'buildIndex') {
      const [opts = {}] = args;
      const o = { ...opts };
      if (o.onProgress === true) o.onProgress = (done, total) => progress(id, done, total, 'build');
      else delete o.onProgress;
      if (o.signal === true) {
        const ac = new AbortController();
        aborts.set(id, ac);
        o.signal = ac.signal;
      } else delete o.signal;
      try {
        return await target.buildIndex(o);
      } finally {
        aborts.delete(id);
      }
    }
    if (typeof target[name] !== 'function' || name.startsWith('_') || name === 'constructor') {
      throw new api.HorosvecError('HV_INVALID_ARGUMENT', `unknown method ${name}`);
    }
    if (name === 'add' || name === 'upsert') return stepped(msg, 'write', records(args[0]), () => target[name](...args));
    return target[name](...args);
  };

  const onMessage = (msg) => {
    if (msg && msg.op === 'cancel') {
      aborts.get(msg.id)?.abort();
      return;
    }
    let p;
    try {
      p = Promise.resolve(run(msg));
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then((v) => {
      try {
        reply(msg.id, describe(v));
      } catch (e) {
        fail(msg.id, e);
      }
    }, (e) => fail(msg.id, e));
  };
  return onMessage;
}
