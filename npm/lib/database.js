// Named collections: `openDatabase(dir)` keeps one durable collection per subdirectory of `dir`
// (each a normal `Collection.open` directory); `openDatabase()` keeps them in memory (both
// backends). Crash safety rests on `rename` being atomic within one directory: a collection is
// built under a hidden temporary name and renamed into place, and a drop renames it out of the
// name space before removing it, so a kill at any point leaves the whole collection or none;
// the hidden leftovers are removed at the next writable open.

import { hvError } from './errors.js';
import { syncDir } from './files.js';

/** What a collection name must look like; every name that does not is refused. */
export const NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;
// hidden entries of the database directory: names never start with '.', so these cannot clash
const TMP = '.tmp-';
const DROP = '.drop-';
// Collection.open options a database takes as defaults for every collection it opens
const OPEN_DEFAULTS = ['durability', 'maxMutableRecords', 'maxSealedSegments', 'maxTombstoneRatio', 'verify', 'refreshIntervalMs'];

const FS_MODULE = 'node:fs/promises';
const PATH_MODULE = 'node:path';

// Test hook: the crash tests set this global to a function called at named points of create and
// drop (where they SIGKILL their own process). Nothing else sets it.
const HOOK = Symbol.for('horosvec.database.testHook');
const hook = (point) => globalThis[HOOK]?.(point);

function checkName(name) {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw hvError('HV_INVALID_ARGUMENT', `collection name ${describe(name)} must match ${NAME} (letters, digits, '_' and '-', 1 to 128 characters, not starting with '-')`);
  }
}

// the defaults' types, checked at openDatabase (the ranges are the core's, at each collection's open)
function checkDefaults(d) {
  if (d.durability !== undefined && !['full', 'normal', 'off'].includes(d.durability)) {
    throw hvError('HV_INVALID_ARGUMENT', `durability must be "full", "normal" or "off", got ${describe(d.durability)}`);
  }
  if (d.verify !== undefined && typeof d.verify !== 'boolean') throw hvError('HV_INVALID_ARGUMENT', 'verify must be a boolean');
  for (const k of ['maxMutableRecords', 'maxSealedSegments', 'maxTombstoneRatio', 'refreshIntervalMs']) {
    if (d[k] !== undefined && typeof d[k] !== 'number') throw hvError('HV_INVALID_ARGUMENT', `${k} must be a number, got ${describe(d[k])}`);
  }
}

function describe(v) {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  return typeof v;
}

function checkObject(options, what) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw hvError('HV_INVALID_ARGUMENT', `${what} must be an object`);
  return options;
}

// A mutex: the database's own operations (create, open, list, drop, close) run one at a time.
function serial() {
  let tail = Promise.resolve();
  return (f) => {
    const run = tail.then(f);
    tail = run.catch(() => undefined);
    return run;
  };
}

/**
 * Builds `openDatabase` over one `Collection` class (the native or the wasm one).
 * @param {any} Collection
 * @param {string} backendName
 * @param {((what: string) => string) | undefined} unsupportedMessage why files are refused (wasm under Node)
 */
export function makeDatabase(Collection, backendName, unsupportedMessage) {
  async function openDatabase(dir, options) {
    const o = checkObject(options, 'openDatabase options');
    const known = ['readOnly', ...OPEN_DEFAULTS];
    const unknown = Object.keys(o).filter((k) => !known.includes(k));
    if (unknown.length > 0) throw hvError('HV_INVALID_ARGUMENT', `unknown openDatabase option ${JSON.stringify(unknown[0])} (known: ${known.join(', ')})`);
    const readOnly = o.readOnly ?? false;
    if (typeof readOnly !== 'boolean') throw hvError('HV_INVALID_ARGUMENT', 'readOnly must be a boolean');
    if (dir === undefined || dir === null) {
      const extra = Object.keys(o).filter((k) => k !== 'readOnly');
      if (extra.length > 0) throw hvError('HV_INVALID_ARGUMENT', `option ${JSON.stringify(extra[0])} needs a directory (an in-memory database has no files)`);
      return new MemoryDatabase(Collection, readOnly);
    }
    if (typeof dir !== 'string' || dir === '') throw hvError('HV_INVALID_ARGUMENT', 'openDatabase(dir): dir must be a non-empty string (a directory), or omitted for an in-memory database');
    if (backendName !== 'native') {
      if (unsupportedMessage) throw hvError('HV_UNSUPPORTED', `${unsupportedMessage('openDatabase(dir)')} (openDatabase() makes an in-memory database.)`);
      throw hvError('HV_UNSUPPORTED', `openDatabase(dir) keeps collections in files, which the ${backendName} build cannot do; call openDatabase() for an in-memory database`);
    }
    const defaults = {};
    for (const k of OPEN_DEFAULTS) if (o[k] !== undefined) defaults[k] = o[k];
    checkDefaults(defaults);
    // Node modules, named through variables so that bundlers of the browser entry leave them
    // alone (this line runs natively only: the wasm build refused a directory above)
    const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ FS_MODULE);
    const path = await import(/* webpackIgnore: true */ /* @vite-ignore */ PATH_MODULE);
    const db = new DirDatabase(Collection, fs, path, dir, readOnly, defaults);
    await db.init();
    return db;
  }
  return openDatabase;
}

class BaseDatabase {
  #closed = false;
  #serial = serial();
  /** name → open Collection */
  _handles = new Map();

  constructor(Collection, readOnly) {
    this.Collection = Collection;
    this.readOnly = readOnly;
  }

  // Runs `f` after the database's earlier operations, failing HV_CLOSED once closed.
  run(f) {
    return this.#serial(() => {
      if (this.#closed) throw hvError('HV_CLOSED', 'the database is closed');
      return f();
    });
  }

  writable(what) {
    if (this.readOnly) throw hvError('HV_READ_ONLY', `${what}: the database was opened with readOnly: true`);
  }

  createCollection(name, options) {
    return this.run(async () => {
      checkName(name);
      this.writable('createCollection');
      const o = checkObject(options, 'createCollection options');
      if (o.readOnly !== undefined) throw hvError('HV_INVALID_ARGUMENT', 'createCollection does not take readOnly (open the database with readOnly: true)');
      if (typeof o.dim !== 'number') throw hvError('HV_INVALID_ARGUMENT', `createCollection needs dim, a positive integer (got ${typeof o.dim})`);
      const taken = (await this.names()).find((n) => n.toLowerCase() === name.toLowerCase());
      if (taken !== undefined) {
        throw hvError('HV_ALREADY_EXISTS', taken === name
          ? `collection ${JSON.stringify(name)} already exists`
          : `collection ${JSON.stringify(taken)} already exists, and names that differ only by letter case are refused (file systems that fold case would mix them)`);
      }
      const c = await this.make(name, o);
      this._handles.set(name, c);
      return c;
    });
  }

  collection(name) {
    return this.run(async () => {
      checkName(name);
      const have = this._handles.get(name);
      // a handle the caller closed is opened again (durable); in memory closing it ended it
      if (have !== undefined && (!isClosed(have) || !this.reopens) && (await this.current(name, have))) return have;
      if (!(await this.names()).includes(name)) throw hvError('HV_NOT_FOUND', `no collection named ${JSON.stringify(name)}`);
      const c = await this.load(name);
      this._handles.set(name, c);
      await this.identify(name, c);
      return c;
    });
  }

  // whether the open handle `c` is still the collection named `name` (see DirDatabase)
  async current(_name, _c) {
    return true;
  }

  async identify(_name, _c) {}

  listCollections() {
    return this.run(async () => {
      const out = [];
      for (const name of (await this.names()).sort()) {
        const info = await this.info(name);
        if (info !== undefined) out.push({ name, dim: info.dim, metric: info.metric });
      }
      return out;
    });
  }

  dropCollection(name) {
    return this.run(async () => {
      checkName(name);
      this.writable('dropCollection');
      if (!(await this.names()).includes(name)) throw hvError('HV_NOT_FOUND', `no collection named ${JSON.stringify(name)}`);
      const c = this._handles.get(name);
      const held = c !== undefined && !isClosed(c);
      // without a handle of ours, whether another writer holds it is checked before anything
      if (!held) await this.checkUnlocked(name);
      this._handles.delete(name);
      if (c !== undefined) await c.close();
      await this.remove(name);
    });
  }

  close() {
    if (this.#closed) return Promise.resolve();
    return this.#serial(async () => {
      if (this.#closed) return;
      this.#closed = true;
      const all = [...this._handles.values()];
      this._handles.clear();
      await Promise.all(all.map((c) => c.close()));
    });
  }
}

class MemoryDatabase extends BaseDatabase {
  #store = new Map();
  #info = new Map();
  reopens = false;

  get path() {
    return null;
  }

  async names() {
    return [...this.#store.keys()];
  }

  async make(name, o) {
    const extra = Object.keys(o).filter((k) => k !== 'dim' && k !== 'metric');
    if (extra.length > 0) throw hvError('HV_INVALID_ARGUMENT', `option ${JSON.stringify(extra[0])} is for durable collections (an in-memory database takes dim and metric)`);
    const c = this.Collection.create({ dim: o.dim, metric: o.metric });
    this.#store.set(name, c);
    this.#info.set(name, { dim: c.dim, metric: c.metric });
    return c;
  }

  async load(name) {
    return this.#store.get(name);
  }

  async info(name) {
    return this.#info.get(name);
  }

  async checkUnlocked() {}

  async remove(name) {
    this.#store.delete(name);
    this.#info.delete(name);
  }
}

class DirDatabase extends BaseDatabase {
  reopens = true;
  /** name → the directory's identity (`dev:ino`) when a read-only handle was opened */
  #ids = new Map();

  constructor(Collection, fs, path, dir, readOnly, defaults) {
    super(Collection, readOnly);
    this.fs = fs;
    this.p = path;
    this.dir = path.resolve(dir);
    this.defaults = defaults;
  }

  get path() {
    return this.dir;
  }

  async init() {
    try {
      if (this.readOnly) {
        const s = await this.fs.stat(this.dir);
        if (!s.isDirectory()) throw hvError('HV_IO', `${this.dir} is not a directory`);
        return;
      }
      await this.fs.mkdir(this.dir, { recursive: true });
      await this.cleanLeftovers();
    } catch (e) {
      throw ioError(e, this.dir);
    }
  }

  // Leftovers of a create or drop that a crash interrupted. A temporary directory of a create
  // still running in another live process (its pid is in the name) is left alone.
  async cleanLeftovers() {
    for (const entry of await this.fs.readdir(this.dir)) {
      let stale = entry.startsWith(DROP);
      if (entry.startsWith(TMP)) {
        const pid = Number(entry.slice(TMP.length).split('-')[0]);
        stale = !(Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid));
      }
      if (stale) await this.fs.rm(this.p.join(this.dir, entry), { recursive: true, force: true });
    }
  }

  async names() {
    let entries;
    try {
      entries = await this.fs.readdir(this.dir, { withFileTypes: true });
    } catch (e) {
      throw ioError(e, this.dir);
    }
    return entries.filter((e) => e.isDirectory() && NAME.test(e.name)).map((e) => e.name);
  }

  openOptions(extra) {
    return { ...this.defaults, ...extra, readOnly: this.readOnly };
  }

  async make(name, o) {
    const { fs, p } = this;
    const tmp = p.join(this.dir, `${TMP}${process.pid}-${Math.random().toString(36).slice(2, 10)}-${name}`);
    const final = p.join(this.dir, name);
    try {
      await fs.mkdir(tmp);
      const c = await this.Collection.open(tmp, this.openOptions(o));
      await c.close();
      hook('create:built');
      try {
        // a directory that is not empty is never replaced: a concurrent create of the same
        // name in another process makes this one fail
        await fs.rename(tmp, final);
      } catch (e) {
        if (e && (e.code === 'ENOTEMPTY' || e.code === 'EEXIST' || e.code === 'EPERM')) {
          throw hvError('HV_ALREADY_EXISTS', `collection ${JSON.stringify(name)} already exists (created concurrently)`);
        }
        throw e;
      }
      hook('create:renamed');
      await syncDir(fs, this.dir);
    } catch (e) {
      await fs.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
      throw ioError(e, final);
    }
    // the options given at creation (durability, limits) hold for this handle too
    const { dim: _dim, metric: _metric, ...rest } = o;
    return this.Collection.open(final, this.openOptions(rest));
  }

  load(name) {
    return this.Collection.open(this.p.join(this.dir, name), this.openOptions({}));
  }

  async #identity(name) {
    try {
      const s = await this.fs.stat(this.p.join(this.dir, name));
      return `${s.dev}:${s.ino}`;
    } catch {
      return undefined;
    }
  }

  // A read-only handle does not stop the writer dropping its collection (and maybe creating
  // another of the same name): one whose directory is gone or replaced is closed and forgotten.
  async current(name, c) {
    if (!this.readOnly) return true; // a writer's handle holds the lock: nobody else drops it
    const id = await this.#identity(name);
    if (id !== undefined && id === this.#ids.get(name)) return true;
    if (this._handles.get(name) === c) this._handles.delete(name);
    this.#ids.delete(name);
    await c.close();
    return false;
  }

  async identify(name) {
    if (this.readOnly) this.#ids.set(name, await this.#identity(name));
  }

  async info(name) {
    const have = this._handles.get(name);
    if (have !== undefined && !isClosed(have) && (await this.current(name, have))) return { dim: have.dim, metric: have.metric };
    let c;
    try {
      c = await this.Collection.open(this.p.join(this.dir, name), { readOnly: true });
    } catch (e) {
      // dropped meanwhile by another process, or not a collection: not listed
      if (e && (e.code === 'HV_IO' || e.code === 'HV_INVALID_ARGUMENT')) return undefined;
      throw e;
    }
    const info = { dim: c.dim, metric: c.metric };
    await c.close();
    return info;
  }

  // the writer's lock: a collection another process (or handle) writes is not dropped
  async checkUnlocked(name) {
    const probe = await this.Collection.open(this.p.join(this.dir, name), this.openOptions({}));
    await probe.close();
  }

  async remove(name) {
    const { fs, p } = this;
    const final = p.join(this.dir, name);
    const gone = p.join(this.dir, `${DROP}${process.pid}-${Math.random().toString(36).slice(2, 10)}-${name}`);
    try {
      await fs.rename(final, gone);
      await syncDir(fs, this.dir);
      hook('drop:renamed');
      // entry by entry (a crash midway leaves a partial `.drop-*`, out of the name space)
      for (const entry of await fs.readdir(gone)) {
        await fs.rm(p.join(gone, entry), { recursive: true, force: true });
        hook('drop:removing');
      }
      await fs.rm(gone, { recursive: true, force: true });
    } catch (e) {
      throw ioError(e, final);
    }
  }
}

function isClosed(c) {
  try {
    void c.dim;
    return false;
  } catch {
    return true;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

function ioError(e, path) {
  if (e && typeof e.code === 'string' && e.code.startsWith('HV_')) return e;
  return hvError('HV_IO', `${path}: ${e && e.message ? e.message : String(e)}`, e);
}
