// Child process of tests-js/database.test.ts: runs one database operation and SIGKILLs itself
// at a chosen point of it (through the database's test hook), or loops creates and drops until
// the parent kills it.
//   node db-crash.mjs <dir> <op> [point]
//   op: create | drop | loop;  point: create:built | create:renamed | drop:renamed | drop:removing
import { openDatabase } from 'horosvec';

const [dir, op, point] = process.argv.slice(2);
const DIM = 16;

if (point) {
  globalThis[Symbol.for('horosvec.database.testHook')] = (at) => {
    if (at === point) process.kill(process.pid, 'SIGKILL');
  };
}

function vectors(n, seed) {
  const out = new Float32Array(n * DIM);
  for (let i = 0; i < out.length; i++) out[i] = Math.sin(seed * 7919 + i * 0.37);
  return out;
}

const db = await openDatabase(dir, { durability: 'normal' });
if (op === 'create') {
  await db.createCollection('victim', { dim: DIM, metric: 'l2' });
} else if (op === 'drop') {
  await db.dropCollection('victim');
} else if (op === 'loop') {
  // each collection `c<i>` holds i + 1 batches of 200: the parent checks whole-or-none
  process.stdout.write('open\n');
  for (let i = 0; ; i++) {
    const name = `c${i % 4}`;
    if ((await db.listCollections()).some((c) => c.name === name)) await db.dropCollection(name);
    const c = await db.createCollection(name, { dim: DIM });
    const ids = Array.from({ length: 200 }, (_, j) => j);
    await c.add(ids, vectors(200, i), ids.map(() => ({ round: i })));
    process.stdout.write(`made ${name} ${i}\n`);
  }
}
process.stdout.write('done\n');
await db.close();
