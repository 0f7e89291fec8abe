// TypeScript strict with `moduleResolution: bundler` (what Vite and Next.js projects use), type-check
// only, against the installed tarball: the generic ids, the error guard, horosvec/wasm and
// horosvec/langchain (with @langchain/core). Cost: one npm install, one tsc (~8–25 s on 2 cores, @langchain/core's typings included).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { project, tsc } from '../lib/hyg.mjs';

const MAIN = `import { Collection, isHorosvecError, type HorosvecErrorCode } from 'horosvec';
import { Collection as WasmCollection } from 'horosvec/wasm';
import type { HorosvecStore } from 'horosvec/langchain';

export async function f(): Promise<HorosvecErrorCode | number> {
  const col = Collection.create<{ t: string }, string>({ dim: 2 });
  await col.add(['a'], [[0, 1]]);
  const [hit] = await col.search([0, 1], { k: 1 });
  const id: string = hit.id;
  // @ts-expect-error a string id is not a number
  const n: number = hit.id;
  const w = WasmCollection.create<unknown, number>({ dim: 2 });
  const wid: number = (await w.search([0, 1], { k: 1 }))[0]?.id ?? 0;
  try { await col.add('a', [0, 1]); } catch (e) { if (isHorosvecError(e)) return e.code; }
  return id.length + n + wid;
}
export type L = HorosvecStore;
`;

export default async function (ctx) {
  const dir = project(ctx, join(ctx.tmp, 'bundler'), { type: 'module' }, { typescript: true, link: ['@langchain/core'] });
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', skipLibCheck: false, types: ['node'], lib: ['es2022', 'dom'] },
    files: ['main.ts'],
  }));
  writeFileSync(join(dir, 'main.ts'), MAIN);
  tsc(ctx, dir);
  return 'tsc strict moduleResolution bundler (horosvec, horosvec/wasm, horosvec/langchain) ok';
}
