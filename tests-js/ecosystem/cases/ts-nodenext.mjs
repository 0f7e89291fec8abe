// TypeScript strict with `module: nodenext`, in an ESM project and in a CommonJS one, against the
// installed tarball (index.d.ts for import, index.d.cts for require); both emitted programs run.
// Cost: one npm install, two tsc runs (~10–20 s on 2 cores, more under load).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { project, sh, tsc } from '../lib/hyg.mjs';
import { MAIN, expectRun } from './ts-cjs-node16.mjs';

// without the adapter (ts-cjs-node16 checks horosvec/langchain's .d.cts; @langchain/core's types
// double tsc's time); the ESM variant has no require
const CORE_MAIN = MAIN.replace("import type { HorosvecStore } from 'horosvec/langchain';\n", '').replace('export type Adapters = [HorosvecStore];\n', '');
const ESM_MAIN = CORE_MAIN.replace("const lib: typeof import('horosvec') = require('horosvec');", "import * as lib from 'horosvec';");

export default async function (ctx) {
  const dir = project(ctx, join(ctx.tmp, 'nodenext'), { type: 'module' }, { typescript: true });
  const done = [];
  for (const [sub, type, main] of [['esm', 'module', ESM_MAIN], ['cjs', 'commonjs', CORE_MAIN]]) {
    const d = join(dir, sub);
    sh('mkdir', ['-p', d], dir);
    writeFileSync(join(d, 'package.json'), JSON.stringify({ type }));
    writeFileSync(join(d, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', outDir: 'dist', skipLibCheck: false, types: ['node'], lib: ['es2022', 'dom'], typeRoots: [join(dir, 'node_modules', '@types')] },
      files: ['main.ts'],
    }));
    writeFileSync(join(d, 'main.ts'), main);
    tsc(ctx, d);
    writeFileSync(join(d, 'dist', 'package.json'), JSON.stringify({ type }));
    const r = expectRun(sh(process.execPath, ['dist/main.js'], d));
    done.push(`${sub} on ${r.backend}`);
  }
  return `tsc strict module nodenext: ${done.join(', ')}`;
}
