// Vite 8, zero config: `vite build` (the .wasm emitted as an asset) served statically, and the
// dev server, each running a search on wasm in Chromium. Cost: one install, one build, two pages.
import { join } from 'node:path';
import { BROWSER_APP, PAGE, assertWasmPage, filesUnder, freshProject, pageResult, serveDir, tool } from '../project.mjs';

export default async function vite(ctx) {
  const dir = await freshProject(ctx, { files: { 'index.html': PAGE('/main.js'), 'main.js': BROWSER_APP() } });
  await tool(ctx, 'vite/bin/vite.js', ['build', '--logLevel', 'warn'], { cwd: dir });
  const wasm = filesUnder(join(dir, 'dist'), (f) => f.endsWith('.wasm'));
  if (wasm.length === 0) throw new Error('vite build emitted no .wasm');
  const server = await serveDir(join(dir, 'dist'));
  let built;
  try {
    built = assertWasmPage(await pageResult(ctx, server.url), 'vite build');
  } finally {
    await server.close();
  }
  const { createServer } = await import('vite');
  const dev = await createServer({ root: dir, logLevel: 'silent', server: { host: '127.0.0.1', port: 0 } });
  let served;
  try {
    await dev.listen();
    const { port } = dev.httpServer.address();
    served = assertWasmPage(await pageResult(ctx, `http://127.0.0.1:${port}/`), 'vite dev');
  } finally {
    await dev.close();
  }
  return `build ${built} (${wasm.length} .wasm asset), dev ${served}`;
}
