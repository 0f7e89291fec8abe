// The installed package as a library user gets it: README, LICENSE, repository, homepage and
// bugs in the tarball; installing it brings no dependency but its own platform package (no
// cli-progress: the CLI uses it only when present); importing it, ESM or CommonJS, works with
// nothing else in node_modules. Cost: one npm install, two node runs (~3 s).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { project, sh } from '../lib/hyg.mjs';

export default async function (ctx) {
  const dir = project(ctx, join(ctx.tmp, 'hygiene'), { type: 'module' });
  const pkgDir = join(dir, 'node_modules', 'horosvec');
  for (const f of ['README.md', 'LICENSE', 'index.d.cts', 'sample/base.f16vecs', 'sample/README.md']) {
    if (!existsSync(join(pkgDir, f))) throw new Error(`the installed package has no ${f}`);
  }
  if (!/^MIT License/.test(readFileSync(join(pkgDir, 'LICENSE'), 'utf8'))) throw new Error('LICENSE is not the MIT licence');
  // the repository's current README, not a copy left in npm/ by an earlier prepack
  if (readFileSync(join(pkgDir, 'README.md'), 'utf8') !== readFileSync(join(ctx.root, 'README.md'), 'utf8')) throw new Error("the tarball's README.md is not the repository's README.md (stale npm/README.md: scripts/pack.mjs must run prepack)");
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  if (pkg.repository?.url !== 'git+https://github.com/horosvec/horosvec.git' || pkg.repository?.directory !== 'npm') throw new Error(`repository: ${JSON.stringify(pkg.repository)}`);
  if (!pkg.homepage || !pkg.bugs?.url) throw new Error('no homepage or bugs');
  if (pkg.dependencies && Object.keys(pkg.dependencies).length) throw new Error(`runtime dependencies: ${Object.keys(pkg.dependencies)}`);
  // node_modules: horosvec and its @horosvec/* platform packages, nothing else
  const installed = readdirSync(join(dir, 'node_modules')).filter((n) => !n.startsWith('.'))
    .flatMap((n) => (n.startsWith('@') ? readdirSync(join(dir, 'node_modules', n)).map((m) => `${n}/${m}`) : [n]));
  const foreign = installed.filter((n) => n !== 'horosvec' && !n.startsWith('@horosvec/'));
  if (foreign.length) throw new Error(`installing horosvec also installed ${foreign.join(', ')}`);
  const esm = sh(process.execPath, ['--input-type=module', '-e', "import { Collection, backend } from 'horosvec'; const c = Collection.create({ dim: 2 }); await c.add(1, [1, 2]); console.log(backend, (await c.search([1, 2], { k: 1 }))[0].id);"], dir).trim();
  const cjs = sh(process.execPath, ['-e', "const { Collection, backend, isHorosvecError } = require('horosvec'); try { Collection.create({ dim: 0 }); } catch (e) { console.log(backend, isHorosvecError(e, 'HV_INVALID_ARGUMENT')); }"], dir).trim();
  if (!/^(native|wasm) 1$/.test(esm) || !/^(native|wasm) true$/.test(cjs)) throw new Error(`imports: ${esm} / ${cjs}`);
  return `README, LICENSE, repository, homepage, bugs present; node_modules: ${installed.join(', ')}; ESM "${esm}", CJS "${cjs}"`;
}
