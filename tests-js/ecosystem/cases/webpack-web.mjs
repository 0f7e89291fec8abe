// webpack 5, zero config (`webpack` with no config file: src/index.js → dist/main.js, production,
// target web; `--mode production` only silences the mode notice): the .wasm is emitted as an asset; the page searches on wasm in Chromium.
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { BROWSER_APP, PAGE, assertNoAddon, assertWasmPage, filesUnder, freshProject, pageResult, serveDir, tool } from '../project.mjs';

export default async function webpackWeb(ctx) {
  const dir = await freshProject(ctx, { files: { 'src/index.js': BROWSER_APP() } });
  const { out } = await tool(ctx, 'webpack-cli/bin/cli.js', ['--mode', 'production', '--stats=errors-warnings'], { cwd: dir });
  // webpack's size hint for the 700 KiB .wasm is the only warning expected
  const warnings = out.split(/\n(?=WARNING|ERROR)/).filter((w) => /^(WARNING|ERROR)/.test(w) && !/asset size limit|performance recommendations/.test(w));
  if (warnings.length) throw new Error(`webpack reported:\n${warnings.join('\n')}`);
  writeFileSync(join(dir, 'dist', 'index.html'), PAGE('main.js'));
  const wasm = filesUnder(join(dir, 'dist'), (f) => f.endsWith('.wasm'));
  if (wasm.length === 0) throw new Error('webpack emitted no .wasm');
  assertNoAddon(join(dir, 'dist'), 'the web bundle');
  const server = await serveDir(join(dir, 'dist'));
  try {
    return `${assertWasmPage(await pageResult(ctx, server.url), 'webpack web')} (${wasm.length} .wasm asset; no warning but webpack's asset-size hint)`;
  } finally {
    await server.close();
  }
}
