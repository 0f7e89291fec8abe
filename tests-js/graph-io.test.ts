// Graph import/export (the padded n × degree u32 format of GPU builders) on both backends, and
// the `horosvec import` / `horosvec export` commands.
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { backends, expectCode } from './helpers/backends.js';
import { loadSample } from './helpers/sample.js';

const ROOT = resolve(__dirname, '..');
const s = loadSample();
const N = 2500;
const base = s.base.subarray(0, N * s.dim);
const queries = s.queries.data.subarray(0, 20 * s.dim);
const dir = mkdtempSync(join(tmpdir(), 'horosvec-graph-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(backends)('%s: importGraph / exportGraph', (_, hv) => {
  it('an exported graph imported over the same records gives the same index', async () => {
    const a = hv.Collection.create({ dim: s.dim, metric: 'cosine' });
    await a.add([...Array(N).keys()].map((i) => `d${i}`), base);
    await expectCode(a.exportGraph(), 'HV_INVALID_ARGUMENT'); // no index yet
    await a.buildIndex({ seed: 9, R: 24 });
    const g = await a.exportGraph();
    expect(g.degree).toBe(24);
    expect(g.adjacency.length).toBe(N * 24);
    expect(g.ids.slice(0, 3)).toEqual(['d0', 'd1', 'd2']);
    const b = hv.Collection.create({ dim: s.dim, metric: 'cosine' });
    await b.add(g.ids, base);
    const rep = await b.importGraph({ adjacency: g.adjacency, degree: g.degree, entry: g.entry, seed: 9 });
    expect(rep.nodes).toBe(N);
    expect(rep.edges + rep.padding).toBe(N * 24);
    expect(rep.selfLoops + rep.duplicates).toBe(0);
    expect(b.stats().mode).toBe(a.stats().mode);
    const o = { k: 10, ef: 48 };
    expect(await b.searchBatch(queries, o)).toEqual(await a.searchBatch(queries, o));
    // inserts keep working on an imported graph
    await b.add('extra', base.subarray(0, s.dim));
    expect((await b.search(base.subarray(0, s.dim), { k: 2 })).map((h) => h.id).sort()).toEqual(['d0', 'extra']);
  });

  it('an index with no live record exports an empty graph and stays usable', async () => {
    const c = hv.Collection.create({ dim: 2 });
    await c.buildIndex();
    expect((await c.exportGraph()).ids).toEqual([]);
    await c.add([1, 2], [[0, 0], [1, 1]]);
    await c.delete([1, 2]);
    expect((await c.exportGraph()).adjacency.length).toBe(0);
    await c.add(3, [2, 2]);
    expect((await c.search([2, 2], { k: 1 }))[0].id).toBe(3);
  });

  it('an input buffer detached before a call that waits its turn is rejected with a code', async () => {
    const c = hv.Collection.create({ dim: 2 });
    const pending = c.add(1, [0, 0]);
    const buf = new Float32Array([1, 1]);
    structuredClone(buf.buffer, { transfer: [buf.buffer] }); // detaches buf
    const err = await c.add(2, buf).then(() => null, (e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toMatch(/^HV_(INVALID_ARGUMENT|DIM_MISMATCH)$/);
    await pending;
    expect(c.size).toBe(1);
  });

  it('skips padding, self loops and repeats; rejects bad shapes without changing anything', async () => {
    const c = hv.Collection.create({ dim: 2 });
    await expectCode(c.importGraph({ adjacency: new Uint32Array(0), degree: 2 }), 'HV_INVALID_ARGUMENT'); // empty collection
    await c.add([10, 11, 12], [[0, 0], [1, 0], [0, 1]]);
    const P = 0xffffffff;
    const rep = await c.importGraph({ adjacency: Uint32Array.from([1, 1, 0, 2, P, P, 0, 1, 2]), degree: 3 });
    expect(rep).toEqual({ nodes: 3, edges: 4, padding: 2, selfLoops: 2, duplicates: 1 });
    expect((await c.search([1, 0.1], { k: 1, exact: false }))[0].id).toBe(11);
    const first = await c.exportGraph();
    expect(first).toEqual({ adjacency: Uint32Array.from([1, P, P, 2, P, P, 0, 1, P]), degree: 3, entry: first.entry, ids: [10, 11, 12] });
    await expectCode(c.importGraph({ adjacency: new Uint32Array(8), degree: 3 }), 'HV_INVALID_ARGUMENT');
    await expectCode(c.importGraph({ adjacency: Uint32Array.from([3, P, P, P, P, P]), degree: 2 }), 'HV_INVALID_ARGUMENT');
    await expectCode(c.importGraph({ adjacency: new Uint32Array(6), degree: 2, entry: 3 }), 'HV_INVALID_ARGUMENT');
    await expectCode(c.importGraph({ adjacency: [1, 2] as never, degree: 2 }), 'HV_INVALID_ARGUMENT');
    await expectCode(c.importGraph({ adjacency: new Uint32Array(0), degree: 0 }), 'HV_INVALID_ARGUMENT');
    await expectCode(c.importGraph({ adjacency: new Uint32Array(9), degree: 3, R: 3 } as never), 'HV_INVALID_ARGUMENT');
    // the failed imports changed nothing
    expect(await c.exportGraph()).toEqual(first);
  });
});

describe('horosvec import / export commands', () => {
  const cli = (args: string[]) => spawnSync(process.execPath, [join(ROOT, 'npm/cli/horosvec.js'), ...args], { encoding: 'utf8', cwd: ROOT });

  it('export writes vectors, ids and the padded adjacency; import reads them back into an equal snapshot', async () => {
    const hv = backends[0][1];
    const a = hv.Collection.create({ dim: s.dim, metric: 'cosine' });
    await a.add([...Array(N).keys()], base);
    await a.buildIndex({ seed: 4 });
    const snap = join(dir, 'a.hvsnap');
    writeFileSync(snap, await a.toBytes());
    const ex = cli(['export', '--snapshot', snap, '--out-dir', join(dir, 'out')]);
    expect(ex.status, ex.stderr).toBe(0);
    const meta = JSON.parse(readFileSync(join(dir, 'out', 'graph.json'), 'utf8'));
    expect(meta).toMatchObject({ nodes: N, degree: 32, metric: 'cosine', dim: s.dim });
    expect(readFileSync(join(dir, 'out', 'graph.u32')).byteLength).toBe(N * 32 * 4);
    const back = join(dir, 'b.hvsnap');
    const im = cli(['import', '--vectors', join(dir, 'out', 'vectors.fvecs'), '--ids', join(dir, 'out', 'ids.jsonl'), '--graph', join(dir, 'out', 'graph.u32'),
      '--degree', '32', '--entry', String(meta.entry), '--metric', 'cosine', '--seed', '4', '--out', back]);
    expect(im.status, im.stderr).toBe(0);
    expect(im.stdout).toMatch(/imported 2500 nodes/);
    const b = await hv.Collection.fromBytes(new Uint8Array(readFileSync(back)));
    const o = { k: 10, ef: 48 };
    expect(await b.searchBatch(queries, o)).toEqual(await a.searchBatch(queries, o));
    // a graph file of the wrong size fails loud
    writeFileSync(join(dir, 'short.u32'), Buffer.alloc(12));
    const bad = cli(['import', '--vectors', join(dir, 'out', 'vectors.fvecs'), '--graph', join(dir, 'short.u32'), '--degree', '32', '--metric', 'cosine', '--out', join(dir, 'x')]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/HV_CORRUPT: .*short\.u32: 12 bytes/);
    const usage = cli(['import', '--vectors', 'v.fvecs']);
    expect(usage.status).toBe(2);
  });
});
