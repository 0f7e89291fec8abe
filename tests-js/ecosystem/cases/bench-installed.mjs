// `npx horosvec bench` from the installed tarball, outside any checkout: on the sample shipped
// in the package (--dataset sample) and on the user's own .fvecs files (ground truth computed,
// then given as .ivecs); a bad command line exits 2, a missing file 1 with HV_IO. Cost: one npm
// install, four short runs with --seconds 0.05 (~6 s on 2 cores).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { project } from '../lib/hyg.mjs';

function fvecs(rows, dim) {
  const b = Buffer.alloc(rows.length * (4 + 4 * dim));
  rows.forEach((r, i) => {
    b.writeInt32LE(dim, i * (4 + 4 * dim));
    r.forEach((x, j) => b.writeFloatLE(x, i * (4 + 4 * dim) + 4 + 4 * j));
  });
  return b;
}

export default async function (ctx) {
  const dir = project(ctx, join(ctx.tmp, 'bench'), { type: 'module' });
  const env = { ...process.env };
  delete env.HOROSVEC_FORCE_WASM;
  const npx = (args) => spawnSync('npx', ['--offline', '--no-install', 'horosvec', 'bench', ...args], { cwd: dir, env, encoding: 'utf8' });
  const jsonl = (out) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const fast = ['--seconds', '0.05', '--warmup', '2', '--json'];

  const s = npx(['--dataset', 'sample', '--ef', '64', ...fast]);
  if (s.status !== 0) throw new Error(`bench --dataset sample exit ${s.status}: ${s.stderr}`);
  const rs = jsonl(s.stdout);
  const [exact, , idx] = rs;
  if (rs.length !== 4 || exact.mode !== 'exact' || exact.recall_mean !== 1 || exact.ground_truth !== 'file' || exact.n !== 2000 || exact.nq !== 100) {
    throw new Error(`unexpected sample records: ${s.stdout.slice(0, 2000)}`);
  }
  if (!(idx.recall_mean >= 0.9) || !/^vamana-rabitq/.test(idx.mode)) throw new Error(`index record: ${JSON.stringify(idx)}`);

  // the user's own files: 500 × 16 random vectors, 20 queries
  let seed = 7;
  const r = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
  const rows = (n) => Array.from({ length: n }, () => Array.from({ length: 16 }, r));
  writeFileSync(join(dir, 'base.fvecs'), fvecs(rows(500), 16));
  writeFileSync(join(dir, 'q.fvecs'), fvecs(rows(20), 16));
  const own = npx(['--base', 'base.fvecs', '--queries', 'q.fvecs', '--ef', '32', ...fast]);
  if (own.status !== 0) throw new Error(`bench on own files exit ${own.status}: ${own.stderr}`);
  const ro = jsonl(own.stdout);
  if (ro.length !== 4 || ro[0].ground_truth !== 'exact-f64' || ro[0].recall_mean !== 1 || ro[0].dataset !== 'base.fvecs') throw new Error(`own-file records: ${own.stdout.slice(0, 1500)}`);

  const bad = npx(['--dataset', 'nope']);
  if (bad.status !== 2 || !/\nusage: horosvec bench/.test(bad.stderr)) throw new Error(`bad args: exit ${bad.status} ${bad.stderr}`);
  const missing = npx(['--base', 'absent.fvecs', '--queries', 'q.fvecs']);
  if (missing.status !== 1 || !/^horosvec: HV_IO: /.test(missing.stderr)) throw new Error(`missing file: exit ${missing.status} ${missing.stderr}`);
  return `sample: ${exact.backend}/${exact.kernel}, exact recall 1, ef 64 recall ${idx.recall_mean.toFixed(3)}; own fvecs ok; exit codes 2 and 1`;
}
