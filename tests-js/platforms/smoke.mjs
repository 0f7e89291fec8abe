// A Node-only smoke run of the public API on whatever native addon the loader picks, for
// platforms where vitest cannot run here (win32-x64-gnu under Wine, see
// scripts/test-platforms.sh). Checks, in order: the backend is native; exact and indexed search
// give the right neighbour; bad input is an Error with a stable code; a durable collection
// writes, seals, closes, reopens with its records and refuses a second writer.
// Usage: node tests-js/platforms/smoke.mjs <out-file> — writes one line per check and a closing
// "N passed, N failed" to <out-file> (Wine's node.exe cannot write to a pipe), exits 1 on failure.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as hv from '../../npm/node.js';

const out = process.argv[2];
const lines = [];
let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    const detail = await fn();
    passed++;
    lines.push(`ok ${name}${detail ? `: ${detail}` : ''}`);
  } catch (e) {
    failed++;
    lines.push(`FAIL ${name}: ${e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : e}`);
  }
}
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

const dim = 8;
const n = 300;
const vectors = new Float32Array(n * dim);
let seed = 7;
for (let i = 0; i < vectors.length; i++) {
  seed = (seed * 1103515245 + 12345) >>> 0;
  vectors[i] = seed / 2 ** 32 - 0.5;
}
const ids = Array.from({ length: n }, (_, i) => `v${i}`);
const query = vectors.slice(42 * dim, 43 * dim);

await check('native backend', () => {
  assert(hv.backend === 'native', `backend is ${hv.backend}`);
  return `${process.platform} ${process.arch} ${process.version}, kernel ${hv.kernel}`;
});
await check('exact search', async () => {
  const col = hv.Collection.create({ dim, metric: 'l2' });
  await col.add(ids, vectors);
  const hits = await col.search(query, { k: 3 });
  assert(hits[0].id === 'v42' && hits[0].distance === 0, JSON.stringify(hits[0]));
  const batch = await col.searchBatch([query, query], { k: 1 });
  assert(batch.length === 2 && batch[1][0].id === 'v42', 'batch');
  return `${col.size} rows`;
});
await check('index search', async () => {
  const col = hv.Collection.create({ dim, metric: 'cosine' });
  await col.add(ids, vectors);
  await col.buildIndex();
  const hits = await col.search(query, { k: 1 });
  assert(hits[0].id === 'v42', JSON.stringify(hits[0]));
  return col.stats().mode;
});
await check('bad input has a code', async () => {
  const col = hv.Collection.create({ dim });
  try {
    await col.add('x', [1, 2, 3]);
  } catch (e) {
    assert(e instanceof Error && typeof e.code === 'string', `not a coded Error: ${e}`);
    return e.code;
  }
  throw new Error('wrong dimension accepted');
});
await check('durable collection', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'horosvec-smoke-'));
  try {
    const col = await hv.Collection.open(dir, { dim, metric: 'l2' });
    await col.add(ids, vectors);
    await col.seal();
    let locked = 'none';
    try {
      await hv.Collection.open(dir);
    } catch (e) {
      locked = e.code;
    }
    assert(locked === 'HV_LOCKED', `second writer: ${locked}`);
    await col.close();
    const again = await hv.Collection.open(dir);
    assert(again.size === n, `reopened size ${again.size}`);
    const hits = await again.search(query, { k: 1 });
    assert(hits[0].id === 'v42', JSON.stringify(hits[0]));
    await again.delete('v42');
    await again.close();
    return `reopened ${n} rows, second writer ${locked}`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

lines.push(`${passed} passed, ${failed} failed`);
fs.writeFileSync(out, lines.join('\n') + '\n');
process.exitCode = failed ? 1 : 0;
