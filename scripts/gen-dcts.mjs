#!/usr/bin/env node
// Writes the CommonJS typings (npm/index.d.cts, npm/adapters/*.d.cts) from the ESM ones
// (npm/index.d.ts, npm/adapters/*.d.ts), which are the source: edit those, then run this.
//
// Why a copy: the package is ESM (`"type": "module"`), so TypeScript reads index.d.ts as an ES
// module, and a CommonJS project compiled with `module: node16` refuses to import it (TS1479)
// although Node ≥ 20.19 can `require('horosvec')`. The `require` condition of the exports map
// points such projects at the .d.cts copy, which TypeScript reads as CommonJS. A .d.cts cannot
// simply re-export the .d.ts (that import is the same TS1479), hence a copy. What the copy
// declares matches what `require` returns: the module namespace of the ESM entry (named exports
// and `default`). Relative imports `./x.js` become `./x.cjs` (resolving to x.d.cts).
//
//   node scripts/gen-dcts.mjs           write the copies
//   node scripts/gen-dcts.mjs --check   exit 1 if a copy is missing or stale (tests-js/package.test.ts)
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SOURCES = ['npm/index.d.ts', 'npm/worker.d.ts', 'npm/adapters/langchain.d.ts', 'npm/adapters/llamaindex.d.ts', 'npm/adapters/mastra.d.ts'];

/** The .d.cts text for the .d.ts at `src` (relative to the repository root). */
export function cjsTypings(src) {
  const text = readFileSync(join(ROOT, src), 'utf8');
  const header = `// Generated from ${relative('npm', src)} by scripts/gen-dcts.mjs: do not edit (the CommonJS\n// copy of the typings, for \`require\` and \`module: node16\` CommonJS projects).\n`;
  const body = text.replace(/(\bfrom\s+|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]*?)\.js\2/g, '$1$2$3.cjs$2');
  return header + body;
}

export const target = (src) => src.replace(/\.d\.ts$/, '.d.cts');

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const src of SOURCES) {
    const out = join(ROOT, target(src));
    const want = cjsTypings(src);
    if (check) {
      if (!existsSync(out) || readFileSync(out, 'utf8') !== want) {
        console.error(`gen-dcts: ${target(src)} is stale: run node scripts/gen-dcts.mjs`);
        stale++;
      }
    } else {
      writeFileSync(out, want);
      console.log(`wrote ${target(src)}`);
    }
  }
  process.exitCode = stale ? 1 : 0;
}
