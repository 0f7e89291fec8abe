// Deno (npm's `deno` package, a root devDependency) running the packed package from a fresh
// npm-installed project, permission by permission:
// - `--allow-ffi` alone: native, durable Collection.open included (the addon's own file I/O is
//   outside Deno's permission checks: --allow-ffi grants as much as a native program has);
// - `--allow-read` without --allow-ffi: wasm, and one warning line on stderr naming --allow-ffi
//   (not silent, no HOROSVEC_DEBUG needed); stats().backendReason and Collection.open's
//   HV_UNSUPPORTED say the same;
// - no flags: the import fails with HV_UNSUPPORTED naming --allow-ffi / --allow-read; the
//   environment is never read without --allow-env (no env error, no prompt);
// - `--allow-env` makes HOROSVEC_FORCE_WASM count; openDatabase(dir) needs --allow-read and
//   --allow-write on the directory besides --allow-ffi.
// Cost: one install, six Deno runs (~1 s each).
import { join } from 'node:path';
import { freshProject, hostKey, run } from '../project.mjs';
import { PROBE, assertNative, probeResult } from '../registry.mjs';

const DB = `import { openDatabase } from 'horosvec';
const dir = Deno.args[0];
try {
  const db = await openDatabase(dir);
  const c = await db.createCollection('a', { dim: 2 });
  await c.add([1], [[1, 2]]);
  await db.close();
  console.log('db ok');
} catch (e) {
  console.log('db ' + e.code + ' ' + e.message.split('\\n')[0]);
}
`;

export default async function deno(ctx) {
  const dir = await freshProject(ctx, { files: { 'probe.mjs': PROBE, 'db.mjs': DB } });
  const bin = join(ctx.root, 'node_modules', '.bin', 'deno');
  const env = { NO_COLOR: '1', DENO_NO_PROMPT: '1', DENO_NO_UPDATE_CHECK: '1', DENO_DIR: join(ctx.tmp, 'deno-dir'), HOROSVEC_DEBUG: '', HOROSVEC_FORCE_WASM: '' };
  const deno = (flags, script, args = [], extra = {}, allowFail = false) =>
    run(bin, ['run', ...flags, script, ...args], { cwd: dir, env: { ...env, ...extra }, allowFail, timeoutMs: 120_000 });
  const key = hostKey();
  const addon = join(dir, 'node_modules', '@horosvec', key, `horosvec.${key}.node`);

  const ffi = probeResult((await deno(['--allow-ffi'], 'probe.mjs', [join(dir, 'db1')])).out);
  assertNative(ffi, 'deno run --allow-ffi');
  if (ffi.other.length) throw new Error(`--allow-ffi printed ${JSON.stringify(ffi.other)}`);

  const read = probeResult((await deno(['--allow-read'], 'probe.mjs', [join(dir, 'db2')])).out);
  const denied = `Requires ffi access to "${addon}", run again with the --allow-ffi flag`;
  if (read.backend !== 'wasm' || read.hit !== 2 || read.reason !== denied) throw new Error(`--allow-read: ${JSON.stringify(read)}`);
  if (read.other.join('\n') !== `horosvec: using the wasm build (in memory only): ${denied}`) throw new Error(`--allow-read: stderr ${JSON.stringify(read.other)}`);
  if (!read.openError?.includes('Deno needs --allow-ffi')) throw new Error(`--allow-read: Collection.open gave ${read.openError}`);

  const none = await deno([], 'probe.mjs', [], {}, true);
  if (none.code === 0 || !none.out.includes('HV_UNSUPPORTED: horosvec cannot load: Deno denied reading its files (run with --allow-ffi')) {
    throw new Error(`no flags: exit ${none.code}, ${none.out.slice(-800)}`);
  }
  if (/env access|--allow-env/.test(none.out)) throw new Error(`no flags: the environment was read: ${none.out.slice(-800)}`);

  const forcedNoEnv = probeResult((await deno(['--allow-ffi'], 'probe.mjs', [], { HOROSVEC_FORCE_WASM: '1' })).out);
  if (forcedNoEnv.backend !== 'native') throw new Error(`HOROSVEC_FORCE_WASM without --allow-env: ${JSON.stringify(forcedNoEnv)}`);
  const forced = probeResult((await deno(['--allow-read', '--allow-env=HOROSVEC_FORCE_WASM,HOROSVEC_DEBUG'], 'probe.mjs', [], { HOROSVEC_FORCE_WASM: 'true' })).out);
  if (forced.backend !== 'wasm' || forced.reason !== 'HOROSVEC_FORCE_WASM=true is set' || forced.other.length) throw new Error(`HOROSVEC_FORCE_WASM=true: ${JSON.stringify(forced)}`);

  const dbDir = join(dir, 'dbs');
  const dbDenied = (await deno(['--allow-ffi'], 'db.mjs', [dbDir])).out.trim();
  if (!dbDenied.startsWith('db HV_IO') || !dbDenied.includes('--allow-write')) throw new Error(`openDatabase with --allow-ffi only: ${dbDenied}`);
  const db = (await deno(['--allow-ffi', `--allow-read=${dbDir}`, `--allow-write=${dbDir}`], 'db.mjs', [dbDir])).out.trim();
  if (db !== 'db ok') throw new Error(`openDatabase with --allow-read/--allow-write on its dir: ${db}`);
  const version = (await run(bin, ['--version'], { cwd: dir, env })).out.split('\n')[0];
  return `${version}: --allow-ffi native + durable; --allow-read → wasm with a warning; no flags → HV_UNSUPPORTED naming the flags, env untouched; openDatabase(dir) with --allow-read/--allow-write=<dir>`;
}
