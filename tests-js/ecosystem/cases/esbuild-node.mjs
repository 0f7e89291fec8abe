// esbuild server bundles (`--bundle --platform=node`, zero config), CommonJS (esbuild's default
// there) and --format=esm: the bundle finds the native addon (@horosvec/<key>, resolved from the
// bundle's own location), and the wasm build under HOROSVEC_FORCE_WASM=1 (its binary resolved
// through the installed package); a bundle copied away from node_modules fails with a coded
// HV_IO error naming the fix, never "Cannot find module". Cost: one install, two builds (~20 ms
// each), five runs.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freshProject, run, runServer, SERVER_APP } from '../project.mjs';

export default async function esbuildNode(ctx) {
  const dir = await freshProject(ctx, { dir: join(ctx.tmp, 'app'), files: { 'server.js': SERVER_APP() } });
  const esbuild = await import('esbuild');
  const notes = [];
  for (const [format, out] of [[undefined, 'dist/server.cjs'], ['esm', 'dist/server.mjs']]) {
    const r = await esbuild.build({ absWorkingDir: dir, entryPoints: ['server.js'], bundle: true, platform: 'node', format, outfile: out, logLevel: 'silent' });
    if (r.warnings.length) throw new Error(`esbuild ${format ?? 'cjs'} warned: ${JSON.stringify(r.warnings.map((w) => w.text))}`);
    const native = await runServer(join(dir, out), { cwd: dir });
    if (native.backend !== 'native') throw new Error(`${out}: expected the native addon, got ${JSON.stringify(native)}`);
    const wasm = await runServer(join(dir, out), { cwd: dir, env: { HOROSVEC_FORCE_WASM: '1' } });
    if (wasm.backend !== 'wasm') throw new Error(`${out}: HOROSVEC_FORCE_WASM=1 gave ${JSON.stringify(wasm)}`);
    notes.push(`${format ?? 'cjs'}: native, wasm when forced`);
  }
  // the CommonJS bundle alone in a directory without node_modules
  const lone = join(ctx.tmp, 'lone');
  mkdirSync(lone);
  copyFileSync(join(dir, 'dist/server.cjs'), join(lone, 'server.cjs'));
  const { code, out } = await run(process.execPath, ['server.cjs'], { cwd: lone, allowFail: true, timeoutMs: 60_000 });
  if (code === 0 || !/HV_IO/.test(out) || !/--external:horosvec/.test(out) || /Cannot find module '\.\//.test(out)) {
    throw new Error(`a bundle without node_modules: expected HV_IO naming --external:horosvec, got (exit ${code}):\n${out}`);
  }
  notes.push('without node_modules: HV_IO naming the fix');
  return notes.join('; ');
}
