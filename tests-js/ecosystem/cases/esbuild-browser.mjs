// esbuild for the browser (the JS API, as `esbuild --bundle`): esbuild neither emits files named
// by new URL(..., import.meta.url) nor allows top-level await in its default iife format, so
//   - `horosvec/inline` (the binary inside the JS) works in both formats, zero config;
//   - `horosvec` with --format=esm fails at run time with HV_IO naming the fix until the .wasm is
//     copied beside the bundle (dist/wasm/), then works;
//   - `horosvec` in the iife format is a build error of esbuild's own (documented).
// Cost: one install, four builds (~0.1 s each), four pages.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BROWSER_APP, PAGE, assertWasmPage, freshProject, servedPageResult } from '../project.mjs';

export default async function esbuildBrowser(ctx) {
  const dir = await freshProject(ctx, { files: { 'app.js': BROWSER_APP(), 'app-inline.js': BROWSER_APP('horosvec/inline') } });
  const esbuild = await import('esbuild');
  const build = (entry, out, format) =>
    esbuild.build({ absWorkingDir: dir, entryPoints: [entry], bundle: true, outfile: out, format, platform: 'browser', logLevel: 'silent' });
  const page = (sub, script, classic, opts) => {
    writeFileSync(join(dir, sub, 'index.html'), PAGE(script, classic));
    return servedPageResult(ctx, join(dir, sub), opts);
  };
  const notes = [];

  // default format (iife) with horosvec/inline
  await build('app-inline.js', 'iife/app.js', undefined);
  notes.push(`iife+inline ${assertWasmPage(await page('iife', 'app.js', true), 'esbuild iife, horosvec/inline')}`);
  // --format=esm with horosvec/inline
  await build('app-inline.js', 'esm-inline/app.js', 'esm');
  notes.push(`esm+inline ${assertWasmPage(await page('esm-inline', 'app.js', false), 'esbuild esm, horosvec/inline')}`);

  // --format=esm with horosvec: a clear error first, then the .wasm copied by hand
  await build('app.js', 'esm/app.js', 'esm');
  const missing = await page('esm', 'app.js', false, { settleOnError: true });
  const msg = missing.errors.join(' ');
  if (!/HV_IO/.test(msg) || !msg.includes("horosvec/inline")) {
    throw new Error(`esbuild esm without the .wasm: expected an HV_IO error naming horosvec/inline, got ${JSON.stringify(missing)}`);
  }
  notes.push('esm without .wasm: HV_IO naming the fix');
  mkdirSync(join(dir, 'esm', 'wasm'));
  copyFileSync(join(dir, 'node_modules/horosvec/wasm/horosvec_wasm_bg.wasm'), join(dir, 'esm/wasm/horosvec_wasm_bg.wasm'));
  notes.push(`esm+copied .wasm ${assertWasmPage(await page('esm', 'app.js', false), 'esbuild esm, .wasm copied')}`);

  // the iife format with horosvec: esbuild's own build error (top-level await)
  const iife = await build('app.js', 'iife-plain/app.js', 'iife').then(
    () => null,
    (e) => e,
  );
  if (!iife || !/[Tt]op-level await/.test(iife.message)) throw new Error(`esbuild iife with horosvec: expected the top-level-await build error, got ${iife ? iife.message : 'a build'}`);
  notes.push('iife+horosvec: esbuild build error (top-level await)');
  return notes.join('; ');
}
