// The ecosystem matrix: packs the package once (scripts/pack.mjs, else `npm pack npm`), then runs
// every case in tests-js/ecosystem/cases/ in turn, each in a fresh directory, and prints one line
// per case and a closing "N passed, N failed". A case is `export default async function (ctx)`
// that throws on failure and returns a short detail string; ctx = { root, packDir, tarballs:
// { main, platforms: { key: path } }, tmp, log(msg) }.
//
//   node tests-js/ecosystem/run.mjs [--only a,b] [--keep]
//
// --keep leaves every case's directory in place (a failed case's always stays, and is named).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const casesDir = join(root, 'tests-js', 'ecosystem', 'cases');

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const only = flag('--only')?.split(',').filter(Boolean);
const keep = args.includes('--keep');

const names = readdirSync(casesDir)
  .filter((f) => f.endsWith('.mjs'))
  .map((f) => basename(f, '.mjs'))
  .sort();
const unknown = (only ?? []).filter((n) => !names.includes(n));
if (unknown.length) {
  console.error(`[ecosystem] no such case: ${unknown.join(', ')} (cases: ${names.join(', ')})`);
  process.exit(2);
}
const selected = only ? names.filter((n) => only.includes(n)) : names;

const work = mkdtempSync(join(tmpdir(), 'horosvec-eco-'));
const packDir = join(work, 'pack');
mkdirSync(packDir);

// The tarballs: the main package first, then one per platform package (`horosvec-<key>-<v>.tgz`).
function pack() {
  const t = Date.now();
  let paths;
  if (existsSync(join(root, 'scripts', 'pack.mjs'))) {
    const out = execFileSync(process.execPath, [join(root, 'scripts', 'pack.mjs'), '--out', packDir], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    paths = out.split('\n').map((l) => l.trim()).filter((l) => l.endsWith('.tgz'));
  } else {
    const out = execFileSync('npm', ['pack', './npm', '--pack-destination', packDir, '--silent'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    paths = out.split('\n').map((l) => l.trim()).filter((l) => l.endsWith('.tgz')).map((f) => join(packDir, basename(f)));
  }
  if (paths.length === 0) throw new Error('packing produced no tarball');
  const [main, ...rest] = paths;
  const platforms = {};
  for (const p of rest) platforms[basename(p).replace(/^horosvec-/, '').replace(/-\d+\.\d+\.\d+[^/]*\.tgz$/, '')] = p;
  console.log(`[ecosystem] packed ${paths.length} tarball(s) in ${((Date.now() - t) / 1000).toFixed(1)} s: ${paths.map((p) => basename(p)).join(', ')}`);
  return { main, platforms };
}

let passed = 0;
let failed = 0;
let tarballs;
try {
  tarballs = pack();
} catch (e) {
  console.error(`[ecosystem] packing failed: ${e.message}`);
  console.log(`0 passed, ${selected.length} failed`);
  process.exit(1);
}

const t0 = Date.now();
for (const name of selected) {
  const tmp = join(work, name);
  mkdirSync(tmp);
  const lines = [];
  const ctx = { root, packDir, tarballs, tmp, log: (msg) => lines.push(String(msg)) };
  const t = Date.now();
  let ok = false;
  let detail;
  try {
    const { default: run } = await import(pathToFileURL(join(casesDir, `${name}.mjs`)).href);
    detail = await run(ctx);
    ok = true;
  } catch (e) {
    detail = String(e?.stack ?? e);
  }
  const s = ((Date.now() - t) / 1000).toFixed(1);
  const text = String(detail ?? '').trim();
  if (ok) {
    passed++;
    console.log(`[ecosystem] ${name}: ok (${s} s) ${text.split('\n')[0]}`);
    if (!keep) rmSync(tmp, { recursive: true, force: true });
  } else {
    failed++;
    console.log(`[ecosystem] ${name}: FAIL (${s} s) ${text.split('\n')[0]}`);
    for (const l of [...lines, ...text.split('\n').slice(1)]) console.log(`    ${l}`);
    console.log(`    (case directory kept: ${tmp})`);
  }
}
console.log(`[ecosystem] matrix took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
if (!keep && failed === 0) rmSync(work, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
