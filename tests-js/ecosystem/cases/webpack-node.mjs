// webpack 5 for a Node server, with the one setting a server bundle needs (`--target node`, or
// `target: 'node'` in a config): no parse error on a `.node` file and no warning at all (the
// loader requires @horosvec/<key> by a computed name that webpack does not trace); the bundle
// runs on the native addon, and on wasm under HOROSVEC_FORCE_WASM=1 (the .wasm emitted as an
// asset). Cost: one install, one build (~3 s), two runs.
import { join } from 'node:path';
import { filesUnder, freshProject, runServer, SERVER_APP, tool } from '../project.mjs';

export default async function webpackNode(ctx) {
  // no "type" field: webpack reads src/index.js as ESM and emits CommonJS dist/main.js
  const dir = await freshProject(ctx, { pkg: { type: undefined }, files: { 'src/index.js': SERVER_APP() } });
  const { out } = await tool(ctx, 'webpack-cli/bin/cli.js', ['--mode', 'production', '--target', 'node', '--stats=errors-warnings'], { cwd: dir });
  if (/WARNING|ERROR/.test(out)) throw new Error(`webpack reported:\n${out.slice(0, 4000)}`);
  if (filesUnder(join(dir, 'dist'), (f) => f.endsWith('.node')).length) throw new Error('the bundle copied a .node file');
  const native = await runServer(join(dir, 'dist', 'main.js'), { cwd: dir });
  if (native.backend !== 'native') throw new Error(`expected the native addon, got ${JSON.stringify(native)}`);
  const wasm = await runServer(join(dir, 'dist', 'main.js'), { cwd: dir, env: { HOROSVEC_FORCE_WASM: '1' } });
  if (wasm.backend !== 'wasm') throw new Error(`HOROSVEC_FORCE_WASM=1: expected wasm, got ${JSON.stringify(wasm)}`);
  return 'no warning; native, wasm when forced';
}
