// Rollup 4 with @rollup/plugin-node-resolve (the plugin any Rollup build of npm packages needs):
// `horosvec/inline` works in the es and iife formats with no other setting; plain `horosvec`
// builds without a .wasm (Rollup emits no asset for new URL(..., import.meta.url)), and the page
// then fails with HV_IO naming `horosvec/inline`, never silently. Cost: one install, three
// builds (~1 s each), three pages.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BROWSER_APP, PAGE, assertWasmPage, filesUnder, freshProject, servedPageResult } from '../project.mjs';

export default async function rollup(ctx) {
  const dir = await freshProject(ctx, { files: { 'app.js': BROWSER_APP(), 'app-inline.js': BROWSER_APP('horosvec/inline') } });
  const { rollup: bundle } = await import('rollup');
  const { nodeResolve } = await import('@rollup/plugin-node-resolve');
  const build = async (input, out, format) => {
    const b = await bundle({ input: join(dir, input), plugins: [nodeResolve({ browser: true, rootDir: dir })], onwarn: (w) => warnings.push(w.message) });
    await b.write({ dir: join(dir, out), entryFileNames: 'app.js', format, name: format === 'iife' ? 'app' : undefined });
    await b.close();
  };
  const warnings = [];
  const page = (sub, classic, opts) => {
    writeFileSync(join(dir, sub, 'index.html'), PAGE('app.js', classic));
    return servedPageResult(ctx, join(dir, sub), opts);
  };
  const notes = [];
  await build('app-inline.js', 'es-inline', 'es');
  notes.push(`es+inline ${assertWasmPage(await page('es-inline', false), 'rollup es, horosvec/inline')}`);
  await build('app-inline.js', 'iife-inline', 'iife');
  notes.push(`iife+inline ${assertWasmPage(await page('iife-inline', true), 'rollup iife, horosvec/inline')}`);
  if (warnings.length) throw new Error(`rollup warned: ${warnings.join('; ')}`);

  await build('app.js', 'es', 'es');
  if (filesUnder(join(dir, 'es'), (f) => f.endsWith('.wasm')).length) throw new Error('rollup emitted a .wasm (the README says it does not: update it)');
  const r = await page('es', false, { settleOnError: true });
  const msg = r.errors.join(' ');
  if (!/HV_IO/.test(msg) || !msg.includes('horosvec/inline')) throw new Error(`rollup es with horosvec: expected HV_IO naming horosvec/inline, got ${JSON.stringify(r)}`);
  notes.push('es+horosvec (no .wasm emitted): HV_IO naming horosvec/inline');
  return notes.join('; ');
}
