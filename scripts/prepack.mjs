#!/usr/bin/env node
// npm/package.json's `prepack` (run by `npm pack` / `npm publish` in npm/, never at install):
//   1. copies the repository's README.md and LICENSE into npm/ (npm puts them in the tarball);
//   2. writes npm/sample/, the data of `horosvec bench --dataset sample`: the first 2,000 base
//      vectors (half precision, as stored) and the first 100 queries of data/sample, with their
//      exact top-100 neighbours under cosine (float64 brute force over the decoded base,
//      npm/cli/groundtruth.js), and a README with provenance and licences;
//   3. checks that the CommonJS typings are current (scripts/gen-dcts.mjs --check).
// All three outputs are gitignored. Cost: well under a second.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { exactTopK } from '../npm/cli/groundtruth.js';
import { parseVecs } from '../npm/cli/vecs.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const NPM = join(ROOT, 'npm');
const SRC = join(ROOT, 'data', 'sample');
const OUT = join(NPM, 'sample');
export const N = 2000;
export const NQ = 100;
const GT_K = 100;

for (const f of ['README.md', 'LICENSE']) copyFileSync(join(ROOT, f), join(NPM, f));

/** The first `rows` rows of a TEXMEX file (`bytesPerValue` per value), as its raw bytes. */
function prefix(path, rows, bytesPerValue) {
  const buf = readFileSync(path);
  const dim = buf.readInt32LE(0);
  const rowBytes = 4 + dim * bytesPerValue;
  if (buf.length < rows * rowBytes) throw new Error(`${path} has fewer than ${rows} rows`);
  return buf.subarray(0, rows * rowBytes);
}

const base = prefix(join(SRC, 'base.f16vecs'), N, 2);
const queries = prefix(join(SRC, 'queries.fvecs'), NQ, 4);
const b = parseVecs(base, 'f16vecs', 'base.f16vecs');
const q = parseVecs(queries, 'fvecs', 'queries.fvecs');
const { ids, width } = exactTopK(b.data, b.n, q.data, q.n, b.dim, 'cosine', GT_K);
const gt = Buffer.alloc(NQ * (4 + width * 4));
for (let r = 0; r < NQ; r++) {
  const o = r * (4 + width * 4);
  gt.writeInt32LE(width, o);
  for (let j = 0; j < width; j++) gt.writeInt32LE(ids[r * width + j], o + 4 + j * 4);
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT);
writeFileSync(join(OUT, 'base.f16vecs'), base);
writeFileSync(join(OUT, 'queries.fvecs'), queries);
writeFileSync(join(OUT, 'groundtruth.ivecs'), gt);
const src = readFileSync(join(SRC, 'README.md'), 'utf8');
const licences = src.slice(src.indexOf('### Licences'), src.indexOf('## Files')).trim();
writeFileSync(
  join(OUT, 'README.md'),
  `# horosvec's shipped sample (\`horosvec bench --dataset sample\`)

Written by the repository's scripts/prepack.mjs when the package is packed: a prefix of the
repository's data/sample (real sentence embeddings; nothing synthetic).

* \`base.f16vecs\`: the first ${N} base vectors of data/sample (${b.dim}-d, IEEE half precision).
* \`queries.fvecs\`: its first ${NQ} held-out queries (float32).
* \`groundtruth.ivecs\`: the exact top-${width} base rows of each query under cosine distance,
  best first (float64 brute force over the decoded half-precision base).

Model: sentence-transformers/all-MiniLM-L6-v2 (mean pooling, L2-normalised). Corpus: WordNet 3.0
glosses, GCIDE / Webster 1913, FOLDOC, Jargon File, fortunes (English texts).

${licences.replace('Copied from the Licences section of `../shared/data/README.md`:', 'As in the repository\'s data/sample/README.md:')}
`,
);

execFileSync(process.execPath, [join(ROOT, 'scripts', 'gen-dcts.mjs'), '--check'], { stdio: 'inherit' });
console.error(`prepack: README.md, LICENSE, sample/ (${N} × ${b.dim} base, ${NQ} queries, top-${width} ground truth) written into npm/`);
