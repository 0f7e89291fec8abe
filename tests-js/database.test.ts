// Named collections (`openDatabase`): the in-memory mode on both backends, the durable mode
// natively (layout, reopen, read-only databases, leftovers, and create / drop interrupted by
// SIGKILL leaving the whole collection or none).
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as native from 'horosvec';
import { backends, expectCode, randomVectors } from './helpers/backends.js';

const CHILD = fileURLToPath(new URL('./helpers/db-crash.mjs', import.meta.url));
const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'horosvec-db-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.each(backends)('%s: in-memory database', (_name, hv) => {
  it('creates, opens, lists, drops and closes collections', async () => {
    const db = await hv.openDatabase();
    expect(db.path).toBeNull();
    expect(await db.listCollections()).toEqual([]);
    const b = await db.createCollection('beta', { dim: 4, metric: 'cosine' });
    const a = await db.createCollection('alpha_1', { dim: 3 });
    expect(await db.listCollections()).toEqual([
      { name: 'alpha_1', dim: 3, metric: 'l2' },
      { name: 'beta', dim: 4, metric: 'cosine' },
    ]);
    await b.add(['x', 'y'], [[1, 0, 0, 0], [0, 1, 0, 0]], [{ k: 1 }, { k: 2 }]);
    expect(await db.collection('beta')).toBe(b);
    expect(await db.collection('alpha_1')).toBe(a);
    const hit = await (await db.collection('beta')).search([1, 0.1, 0, 0], { k: 1 });
    expect(hit[0].id).toBe('x');
    await db.dropCollection('beta');
    await expectCode(b.search([1, 0, 0, 0], { k: 1 }), 'HV_CLOSED');
    await expectCode(db.collection('beta'), 'HV_NOT_FOUND');
    expect((await db.listCollections()).map((c) => c.name)).toEqual(['alpha_1']);
    // a dropped name can be created again, empty
    const b2 = await db.createCollection('beta', { dim: 2 });
    expect(b2.size).toBe(0);
    await db.close();
    await expectCode(a.search([1, 0, 0], { k: 1 }), 'HV_CLOSED');
    for (const call of [() => db.listCollections(), () => db.collection('alpha_1'), () => db.createCollection('z', { dim: 2 }), () => db.dropCollection('alpha_1')]) {
      await expectCode(call(), 'HV_CLOSED');
    }
    await db.close(); // twice is fine
  });

  it('refuses bad names, duplicates, names differing only by case, and bad options', async () => {
    const db = await hv.openDatabase();
    await db.createCollection('Docs', { dim: 2 });
    await expectCode(db.createCollection('Docs', { dim: 2 }), 'HV_ALREADY_EXISTS');
    await expectCode(db.createCollection('docs', { dim: 2 }), 'HV_ALREADY_EXISTS');
    await expectCode(db.collection('docs'), 'HV_NOT_FOUND');
    for (const bad of ['', '-x', '.hidden', 'a/b', 'a b', 'é', 'x'.repeat(129), 7, null, undefined]) {
      await expectCode(db.createCollection(bad as string, { dim: 2 }), 'HV_INVALID_ARGUMENT');
      await expectCode(db.collection(bad as string), 'HV_INVALID_ARGUMENT');
      await expectCode(db.dropCollection(bad as string), 'HV_INVALID_ARGUMENT');
    }
    expect((await db.createCollection('x'.repeat(128), { dim: 2 })).dim).toBe(2);
    await expectCode(db.createCollection('nodim', {} as { dim: number }), 'HV_INVALID_ARGUMENT');
    await expectCode(db.createCollection('badmetric', { dim: 2, metric: 'hamming' as 'l2' }), 'HV_INVALID_ARGUMENT');
    await expectCode(db.createCollection('baddim', { dim: 0 }), 'HV_INVALID_ARGUMENT');
    await expectCode(db.createCollection('durable', { dim: 2, durability: 'full' }), 'HV_INVALID_ARGUMENT');
    await expectCode(db.dropCollection('absent'), 'HV_NOT_FOUND');
    // nothing of the refused calls was created
    expect((await db.listCollections()).map((c) => c.name)).toEqual(['Docs', 'x'.repeat(128)]);
    await expectCode(hv.openDatabase(undefined, { durability: 'off' }), 'HV_INVALID_ARGUMENT');
    await expectCode(hv.openDatabase(undefined, { nope: 1 } as object), 'HV_INVALID_ARGUMENT');
    await expectCode(hv.openDatabase(42 as unknown as string), 'HV_INVALID_ARGUMENT');
    await db.close();
  });

  it('a handle the caller closed: listed still; in memory it stays closed (use dropCollection)', async () => {
    const db = await hv.openDatabase();
    const c = await db.createCollection('c', { dim: 2 });
    await c.close();
    expect(await db.listCollections()).toEqual([{ name: 'c', dim: 2, metric: 'l2' }]);
    await expectCode((await db.collection('c')).search([1, 1], { k: 1 }), 'HV_CLOSED');
    await db.dropCollection('c');
    expect(await db.listCollections()).toEqual([]);
    await db.close();
  });

  it('concurrent calls run in order', async () => {
    const db = await hv.openDatabase();
    const made = await Promise.all(['a', 'b', 'c'].map((n, i) => db.createCollection(n, { dim: i + 1 })));
    const [again, list] = await Promise.all([db.collection('b'), db.listCollections()]);
    expect(again).toBe(made[1]);
    expect(list.map((c) => c.dim)).toEqual([1, 2, 3]);
    const results = await Promise.allSettled([db.createCollection('d', { dim: 2 }), db.createCollection('d', { dim: 2 })]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    await db.close();
  });
});

describe('wasm: files', () => {
  it('openDatabase(dir) is HV_UNSUPPORTED', async () => {
    const wasm = backends.find(([n]) => n === 'wasm')![1];
    await expectCode(wasm.openDatabase(tempDir()), 'HV_UNSUPPORTED');
  });
});

describe('native: durable database', () => {
  it('checks the default open options at openDatabase, before any directory is made', async () => {
    const dir = join(tempDir(), 'db');
    await expectCode(native.openDatabase(dir, { durability: 'x' as 'full' }), 'HV_INVALID_ARGUMENT');
    await expectCode(native.openDatabase(dir, { maxMutableRecords: '10' as unknown as number }), 'HV_INVALID_ARGUMENT');
    await expectCode(native.openDatabase(dir, { verify: 1 as unknown as boolean }), 'HV_INVALID_ARGUMENT');
    expect(existsSync(dir)).toBe(false);
  });
  it('keeps collections in one subdirectory each, across reopen', async () => {
    const dir = join(tempDir(), 'db');
    let db = await native.openDatabase(dir);
    expect(db.path).toBe(dir);
    const docs = await db.createCollection('docs', { dim: 8, metric: 'cosine', durability: 'normal' });
    const data = randomVectors(300, 8, 1);
    await docs.add(Array.from({ length: 300 }, (_, i) => i), data, Array.from({ length: 300 }, (_, i) => ({ i })));
    await db.createCollection('other', { dim: 3, metric: 'ip' });
    expect(readdirSync(dir).sort()).toEqual(['docs', 'other']);
    expect(readdirSync(join(dir, 'docs'))).toContain('collection.db');
    await db.close();
    db = await native.openDatabase(dir);
    expect(await db.listCollections()).toEqual([
      { name: 'docs', dim: 8, metric: 'cosine' },
      { name: 'other', dim: 3, metric: 'ip' },
    ]);
    const again = await db.collection('docs');
    expect(again.size).toBe(300);
    expect(again.get(7)!.metadata).toEqual({ i: 7 });
    expect(await db.collection('docs')).toBe(again);
    // a handle the caller closed is opened again
    await again.close();
    expect((await db.listCollections()).map((c) => c.dim)).toEqual([8, 3]);
    const reopened = await db.collection('docs');
    expect(reopened).not.toBe(again);
    expect(reopened.size).toBe(300);
    // each one is a normal collection directory; its writer lock holds while the db has it open
    await expectCode(native.Collection.open(join(dir, 'docs')), 'HV_LOCKED');
    await db.dropCollection('other');
    expect(existsSync(join(dir, 'other'))).toBe(false);
    await db.close();
    const direct = await native.Collection.open(join(dir, 'docs'), { readOnly: true });
    expect(direct.size).toBe(300);
    await direct.close();
  });

  it('refuses to drop a collection another handle writes, and an existing or case-folded name', async () => {
    const dir = tempDir();
    const db = await native.openDatabase(dir);
    await db.createCollection('Busy', { dim: 2 });
    await db.close();
    const writer = await native.Collection.open(join(dir, 'Busy'));
    await writer.add(['a'], [[1, 2]]);
    const db2 = await native.openDatabase(dir);
    await expectCode(db2.dropCollection('Busy'), 'HV_LOCKED');
    expect(writer.size).toBe(1); // the refused drop touched nothing
    await expectCode(db2.collection('Busy'), 'HV_LOCKED');
    await expectCode(db2.createCollection('busy', { dim: 2 }), 'HV_ALREADY_EXISTS');
    await expectCode(db2.collection('busy'), 'HV_NOT_FOUND');
    await writer.close();
    expect((await db2.collection('Busy')).size).toBe(1);
    await db2.close();
  });

  it('a readOnly database opens collections read-only and lists what exists now', async () => {
    const dir = tempDir();
    const db = await native.openDatabase(dir);
    const a = await db.createCollection('a', { dim: 2 });
    await a.add(['x'], [[1, 1]]);
    const ro = await native.openDatabase(dir, { readOnly: true });
    expect(ro.readOnly).toBe(true);
    expect((await ro.listCollections()).map((c) => c.name)).toEqual(['a']);
    await db.createCollection('b', { dim: 3 });
    expect((await ro.listCollections()).map((c) => c.name)).toEqual(['a', 'b']);
    const view = await ro.collection('a');
    expect(view.size).toBe(1);
    await expectCode(view.add(['y'], [[2, 2]]), 'HV_READ_ONLY');
    await expectCode(ro.createCollection('c', { dim: 2 }), 'HV_READ_ONLY');
    await expectCode(ro.dropCollection('b'), 'HV_READ_ONLY');
    await db.dropCollection('b');
    expect((await ro.listCollections()).map((c) => c.name)).toEqual(['a']);
    await ro.close();
    await db.close();
    await expectCode(native.openDatabase(join(dir, 'missing'), { readOnly: true }), 'HV_IO');
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  it('a readOnly database never serves a collection the writer dropped (or dropped and created again)', async () => {
    const dir = tempDir();
    const db = await native.openDatabase(dir);
    const a = await db.createCollection('a', { dim: 2 });
    await a.add(['x'], [[1, 1]]);
    const ro = await native.openDatabase(dir, { readOnly: true });
    const old = await ro.collection('a');
    expect(old.size).toBe(1);
    await db.dropCollection('a');
    await expectCode(ro.collection('a'), 'HV_NOT_FOUND');
    await db.createCollection('a', { dim: 3, metric: 'cosine' });
    expect(await ro.listCollections()).toEqual([{ name: 'a', dim: 3, metric: 'cosine' }]);
    const now = await ro.collection('a');
    expect(now).not.toBe(old);
    expect([now.dim, now.size]).toEqual([3, 0]);
    await ro.close();
    await db.close();
  });

  it('removes the leftovers of an interrupted create or drop at open, and ignores stray entries', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.drop-123-abc-old'));
    writeFileSync(join(dir, '.drop-123-abc-old', 'collection.db'), 'x');
    mkdirSync(join(dir, '.tmp-999999999-abc-new')); // a pid that is not running
    writeFileSync(join(dir, 'notes.txt'), 'not a collection');
    mkdirSync(join(dir, 'empty'));
    const db = await native.openDatabase(dir);
    expect(readdirSync(dir).sort()).toEqual(['empty', 'notes.txt']);
    expect(await db.listCollections()).toEqual([]); // an empty directory is no collection
    await db.close();
  });
});

function runChild(dir: string, op: string, point?: string) {
  return spawnSync(process.execPath, [CHILD, dir, op, ...(point ? [point] : [])], { encoding: 'utf8', timeout: 60_000 });
}

async function seedVictim(dir: string, n: number): Promise<void> {
  const db = await native.openDatabase(dir, { durability: 'normal' });
  const c = await db.createCollection('victim', { dim: 16 });
  await c.add(Array.from({ length: n }, (_, i) => i), randomVectors(n, 16, 3));
  await c.seal(); // a sealed segment file beside the database: the drop removes several files
  await db.close();
}

describe('native: create and drop interrupted by SIGKILL', () => {
  it.each([
    ['create', 'create:built', false],
    ['create', 'create:renamed', true],
    ['drop', 'drop:renamed', false],
    ['drop', 'drop:removing', false],
  ] as const)('%s killed at %s leaves the whole collection or none', async (op, point, present) => {
    const dir = tempDir();
    if (op === 'drop') await seedVictim(dir, 2000);
    const r = runChild(dir, op, point);
    expect(r.signal, r.stderr).toBe('SIGKILL');
    expect(r.stdout).not.toContain('done');
    // the hidden leftover is there until the next open
    expect(readdirSync(dir).some((e) => e.startsWith('.'))).toBe(!present);
    const db = await native.openDatabase(dir);
    expect(readdirSync(dir).filter((e) => e.startsWith('.'))).toEqual([]);
    const names = (await db.listCollections()).map((c) => c.name);
    expect(names).toEqual(present ? ['victim'] : []);
    if (present) {
      const c = await db.collection('victim');
      expect(c.dim).toBe(16);
      await c.add(['after'], [new Float32Array(16).fill(1)]);
      expect(c.size).toBe(1);
    }
    // the name is usable either way
    if (!present) expect((await db.createCollection('victim', { dim: 16 })).size).toBe(0);
    await db.close();
  });

  it('the uninterrupted operations run to the end', async () => {
    const dir = tempDir();
    expect(runChild(dir, 'create').stdout).toContain('done');
    expect(runChild(dir, 'drop').stdout).toContain('done');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a loop of creates, writes and drops killed at random moments: every collection is whole or absent', async () => {
    const dir = tempDir();
    let made = 0;
    for (let round = 0; round < 5; round++) {
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [CHILD, dir, 'loop'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let text = '';
        let err = '';
        let timer: NodeJS.Timeout | null = null;
        child.stdout.on('data', (d) => {
          text += d;
          if (timer === null && text.includes('open\n')) timer = setTimeout(() => child.kill('SIGKILL'), 50 + round * 120);
        });
        child.stderr.on('data', (d) => (err += d));
        child.on('close', (_code, signal) => (signal === 'SIGKILL' ? resolve(text) : reject(new Error(`child ended without the kill: ${err}`))));
      });
      made += (out.match(/^made /gm) ?? []).length;
      const db = await native.openDatabase(dir);
      for (const { name, dim } of await db.listCollections()) {
        expect(name).toMatch(/^c[0-3]$/);
        expect(dim).toBe(16);
        const c = await db.collection(name);
        // created empty, then one batch of 200: a create the kill cut short is whole and empty
        expect([0, 200]).toContain(c.size);
        if (c.size === 200) {
          const rounds = new Set((await c.list({ limit: 1000 })).records.map((r) => (r.metadata as { round: number }).round));
          expect(rounds.size).toBe(1);
        }
      }
      expect(readdirSync(dir).filter((e) => e.startsWith('.'))).toEqual([]);
      await db.close();
    }
    expect(made).toBeGreaterThan(0);
  });
});
