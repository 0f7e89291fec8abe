// TypeScript strict with the legacy `moduleResolution: node` (node10: TypeScript's default for
// `module: commonjs`, still common in older projects), which ignores `exports`: the root's
// `types` and the subpaths through `typesVersions` (horosvec/wasm, horosvec/inline,
// horosvec/langchain). Type-check only. Cost: one npm install, one tsc (~5–20 s on 2 cores).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { project, tsc } from '../lib/hyg.mjs';

const MAIN = `import { Collection, isHorosvecError, HorosvecError, type HorosvecErrorCode } from 'horosvec';
import { Collection as WasmCollection } from 'horosvec/wasm';
import * as inline from 'horosvec/inline';
import type { HorosvecStore } from 'horosvec/langchain';

export async function f(): Promise<HorosvecErrorCode | number> {
  const col = Collection.create<{ t: string }, number>({ dim: 2 });
  await col.add([1], [[0, 1]]);
  // @ts-expect-error a string id in a collection of number ids
  await col.add('a', [0, 1]);
  const w = WasmCollection.create<unknown, string>({ dim: 2 });
  const wid: string = (await w.search([0, 1], { k: 1 }))[0]?.id ?? '';
  const b: 'wasm' | 'native' = inline.backend;
  try { await col.add(1, [0, 1]); } catch (e) { if (isHorosvecError(e, 'HV_DUPLICATE_ID')) return e.code; if (e instanceof HorosvecError) return 0; }
  return wid.length + b.length;
}
export type L = HorosvecStore;
`;

export default async function (ctx) {
  const dir = project(ctx, join(ctx.tmp, 'node10'), {}, { typescript: true, link: ['@langchain/core'] });
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'commonjs', moduleResolution: 'node', skipLibCheck: false, types: ['node'], lib: ['es2022', 'dom'] },
    files: ['main.ts'],
  }));
  writeFileSync(join(dir, 'main.ts'), MAIN);
  tsc(ctx, dir);
  return 'tsc strict module commonjs, moduleResolution node (node10): horosvec, horosvec/wasm, horosvec/inline, horosvec/langchain ok';
}
