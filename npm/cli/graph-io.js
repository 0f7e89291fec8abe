// `horosvec import` and `horosvec export`: move an index graph between horosvec and the flat
// format GPU builders (cuVS CAGRA) write: vectors (.fvecs / .f16vecs / .bvecs), optional ids
// (one JSON value per line: a string or a safe integer; default the row numbers) and a raw
// little-endian u32 adjacency of n × degree entries padded with 0xFFFFFFFF. The collection moves
// as an HVSNAP01 snapshot file (`Collection.fromBytes` loads it on either backend).
import { readFileSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readVecs } from './vecs.js';
import { hvError } from '../lib/errors.js';

export const IMPORT_USAGE =
  'usage: horosvec import --vectors FILE --graph FILE --degree D --metric l2|cosine|ip|l1 --out SNAPSHOT\n' +
  '                       [--ids FILE] [--entry N] [--L 64] [--alpha 1.1] [--bits auto] [--seed 42]';
export const EXPORT_USAGE = 'usage: horosvec export --snapshot FILE --out-dir DIR';

function cliError(code, message) {
  return hvError(code, message);
}

function readBytes(path, what) {
  try {
    return readFileSync(path);
  } catch (e) {
    throw cliError('HV_IO', `cannot read ${what} ${path}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
}

function intOpt(values, name, usage, min = 0) {
  if (values[name] === undefined) return undefined;
  const x = Number(values[name]);
  if (!/^\d+$/.test(values[name]) || !Number.isSafeInteger(x) || x < min) throw usage(`--${name} must be an integer ≥ ${min}, got "${values[name]}"`);
  return x;
}

/** `horosvec import …`; `usage(msg)` makes a usage error (exit code 2). */
export async function runImport(args, lib, usage) {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        vectors: { type: 'string' },
        graph: { type: 'string' },
        degree: { type: 'string' },
        ids: { type: 'string' },
        metric: { type: 'string' },
        entry: { type: 'string' },
        out: { type: 'string' },
        L: { type: 'string' },
        alpha: { type: 'string' },
        bits: { type: 'string' },
        seed: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw usage(String(e.message));
  }
  if (values.help) {
    process.stdout.write(`${IMPORT_USAGE}\n`);
    return 0;
  }
  for (const need of ['vectors', 'graph', 'degree', 'metric', 'out']) {
    if (values[need] === undefined) throw usage(`import needs --${need}`);
  }
  const degree = intOpt(values, 'degree', usage, 1);
  const entry = intOpt(values, 'entry', usage);
  const params = {};
  if (values.L !== undefined) params.L = intOpt(values, 'L', usage, 1);
  if (values.bits !== undefined && values.bits !== 'auto') params.bits = intOpt(values, 'bits', usage, 1);
  if (values.seed !== undefined) params.seed = intOpt(values, 'seed', usage);
  if (values.alpha !== undefined) {
    params.alpha = Number(values.alpha);
    if (!Number.isFinite(params.alpha)) throw usage(`--alpha must be a number, got "${values.alpha}"`);
  }
  const vec = readVecs(values.vectors);
  const vectors = vec.data instanceof Float32Array ? vec.data : Float32Array.from(vec.data);
  const raw = readBytes(values.graph, 'graph');
  if (raw.byteLength % 4 !== 0) throw cliError('HV_CORRUPT', `${values.graph}: ${raw.byteLength} bytes is not a whole number of u32 entries`);
  const expected = vec.n * degree * 4;
  if (raw.byteLength !== expected) {
    throw cliError('HV_CORRUPT', `${values.graph}: ${raw.byteLength} bytes, but ${vec.n} vectors × degree ${degree} × 4 = ${expected} were expected`);
  }
  const adjacency = new Uint32Array(raw.byteLength / 4);
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  for (let i = 0; i < adjacency.length; i++) adjacency[i] = dv.getUint32(i * 4, true);
  let ids;
  if (values.ids !== undefined) {
    const lines = readBytes(values.ids, 'ids').toString('utf8').split('\n').filter((l) => l !== '');
    if (lines.length !== vec.n) throw cliError('HV_CORRUPT', `${values.ids}: ${lines.length} ids for ${vec.n} vectors`);
    ids = lines.map((l, i) => {
      try {
        return JSON.parse(l);
      } catch {
        throw cliError('HV_CORRUPT', `${values.ids}: line ${i + 1} is not a JSON string or integer`);
      }
    });
  } else {
    ids = [...Array(vec.n).keys()];
  }
  const col = lib.Collection.create({ dim: vec.dim, metric: values.metric });
  try {
    await col.add(ids, vectors);
    const rep = await col.importGraph({ adjacency, degree, ...(entry === undefined ? {} : { entry }), ...params });
    const bytes = await col.toBytes();
    try {
      writeFileSync(values.out, bytes);
    } catch (e) {
      throw cliError('HV_IO', `cannot write ${values.out}: ${e.message}`);
    }
    process.stdout.write(
      `imported ${rep.nodes} nodes, ${rep.edges} edges (skipped ${rep.padding} padding, ${rep.selfLoops} self loops, ${rep.duplicates} duplicates); ` +
        `mode ${col.stats().mode}; wrote ${bytes.byteLength} bytes to ${values.out}\n`,
    );
  } finally {
    await col.close();
  }
  return 0;
}

/** `horosvec export …`: snapshot → vectors.fvecs, ids.jsonl, graph.u32, graph.json. */
export async function runExport(args, lib, usage) {
  let values;
  try {
    ({ values } = parseArgs({ args, strict: true, options: { snapshot: { type: 'string' }, 'out-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (e) {
    throw usage(String(e.message));
  }
  if (values.help) {
    process.stdout.write(`${EXPORT_USAGE}\n`);
    return 0;
  }
  if (values.snapshot === undefined || values['out-dir'] === undefined) throw usage('export needs --snapshot and --out-dir');
  const col = await lib.Collection.fromBytes(new Uint8Array(readBytes(values.snapshot, 'snapshot')));
  try {
    const g = await col.exportGraph();
    const dir = values['out-dir'];
    try {
      mkdirSync(dir, { recursive: true });
      if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    } catch (e) {
      throw cliError('HV_IO', `cannot create ${dir}: ${e.message}`);
    }
    const n = g.ids.length;
    const dim = col.dim;
    const fvecs = Buffer.alloc(n * (4 + 4 * dim));
    g.ids.forEach((id, i) => {
      const v = col.get(id).vector;
      const off = i * (4 + 4 * dim);
      fvecs.writeInt32LE(dim, off);
      for (let j = 0; j < dim; j++) fvecs.writeFloatLE(v[j], off + 4 + 4 * j);
    });
    const adj = Buffer.alloc(g.adjacency.length * 4);
    for (let i = 0; i < g.adjacency.length; i++) adj.writeUInt32LE(g.adjacency[i], i * 4);
    try {
      writeFileSync(join(dir, 'vectors.fvecs'), fvecs);
      writeFileSync(join(dir, 'ids.jsonl'), g.ids.map((id) => JSON.stringify(id)).join('\n') + (n > 0 ? '\n' : ''));
      writeFileSync(join(dir, 'graph.u32'), adj);
      writeFileSync(join(dir, 'graph.json'), `${JSON.stringify({ nodes: n, degree: g.degree, entry: g.entry, metric: col.metric, dim, stats: col.stats() }, null, 2)}\n`);
    } catch (e) {
      throw cliError('HV_IO', `cannot write into ${dir}: ${e.message}`);
    }
    process.stdout.write(`exported ${n} nodes × degree ${g.degree} (entry ${g.entry}) to ${dir}: vectors.fvecs, ids.jsonl, graph.u32, graph.json\n`);
  } finally {
    await col.close();
  }
  return 0;
}
