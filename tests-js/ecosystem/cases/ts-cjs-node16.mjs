// TypeScript strict in a CommonJS project with `module: node16` (the TS1479 of issue 16): both
// `import … from 'horosvec'` (compiled to require) and `require('horosvec')` type-check against
// the installed tarball's index.d.cts (and horosvec/langchain's .d.cts, with @langchain/core); the emitted CommonJS runs and
// sees typed number ids and HorosvecError. Cost: one npm install from the tarballs, one tsc
// (~10–20 s on 2 cores: @langchain/core's typings are checked too).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { project, sh, tsc } from '../lib/hyg.mjs';

export const MAIN = `import { Collection, HorosvecError, isHorosvecError, type SearchHit } from 'horosvec';
import type { HorosvecStore } from 'horosvec/langchain';
const lib: typeof import('horosvec') = require('horosvec');

interface Doc { title: string }

async function main(): Promise<void> {
  const col = Collection.create<Doc, number>({ dim: 2, metric: 'cosine' });
  await col.add([1, 2], [[0, 1], [1, 0]], [{ title: 'a' }, { title: 'b' }]);
  const hits: SearchHit<Doc, number>[] = await col.search([0, 1], { k: 1 });
  const id: number = hits[0].id;
  // @ts-expect-error number ids only
  await col.add('x', [0, 1]).catch(() => undefined);
  let code = 'none';
  try {
    await col.add(1, [0, 1]);
  } catch (e) {
    if (isHorosvecError(e, 'HV_DUPLICATE_ID')) code = e.code;
    if (!(e instanceof HorosvecError) || !(e instanceof lib.HorosvecError)) throw new Error('not a HorosvecError');
  }
  console.log(JSON.stringify({ backend: lib.backend, id, code, title: hits[0].metadata?.title }));
}
export type Adapters = [HorosvecStore];
main().catch((e) => { console.error(e); process.exit(1); });
`;

export function expectRun(out, backend) {
  const r = JSON.parse(out.trim().split('\n').at(-1));
  if (r.id !== 1 || r.code !== 'HV_DUPLICATE_ID' || r.title !== 'a') throw new Error(`unexpected output ${out}`);
  if (backend && r.backend !== backend) throw new Error(`backend ${r.backend}, expected ${backend}`);
  return r;
}

export default async function (ctx) {
  const dir = project(ctx, join(ctx.tmp, 'cjs-node16'), { type: 'commonjs' }, { typescript: true, link: ['@langchain/core'] });
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, target: 'es2022', module: 'node16', moduleResolution: 'node16', outDir: 'dist', skipLibCheck: false, types: ['node'], lib: ['es2022', 'dom'] },
    files: ['main.ts'],
  }));
  writeFileSync(join(dir, 'main.ts'), MAIN);
  tsc(ctx, dir);
  const js = readFileSync(join(dir, 'dist', 'main.js'), 'utf8');
  if (!/require\("horosvec"\)/.test(js)) throw new Error('tsc did not emit CommonJS require calls');
  const r = expectRun(sh(process.execPath, ['dist/main.js'], dir));
  return `tsc strict module node16 (CommonJS, import and require forms, horosvec/langchain) ok; emitted CJS ran on ${r.backend}`;
}
