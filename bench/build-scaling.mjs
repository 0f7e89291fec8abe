#!/usr/bin/env node
// Build scaling: the time of buildIndex with 1 and with 2 rayon threads (RAYON_NUM_THREADS),
// alternated --repeats times so that drifts of a shared machine hit both sides alike. Each build
// is one `node bench/ef-sweep.mjs --index vamana` process (its `index_s` is buildIndex alone, `add_s`
// excluded). Prints one JSONL record per build and a last record with the ratio of the medians.
//
// Usage: node bench/build-scaling.mjs [--dataset minilm384] [--repeats 2] [--threads 1,2] [-- extra bench flags]
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib/median.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    dataset: { type: 'string', default: 'minilm384' },
    repeats: { type: 'string', default: '2' },
    threads: { type: 'string', default: '1,2' },
  },
});
const threads = values.threads.split(',').map(Number);
const times = new Map(threads.map((t) => [t, []]));
for (let r = 0; r < Number(values.repeats); r++) {
  for (const t of threads) {
    const args = ['bench/ef-sweep.mjs', '--dataset', values.dataset, '--index', 'vamana', '--ef', '64', '--seconds', '0.2', '--json', ...positionals];
    const p = spawnSync(process.execPath, args, { cwd: ROOT, env: { ...process.env, RAYON_NUM_THREADS: String(t) }, encoding: 'utf8' });
    if (p.status !== 0) throw new Error(`bench failed: ${p.stderr}`);
    const rec = JSON.parse(p.stdout.split('\n')[0]);
    if (rec.threads !== t) throw new Error(`asked for ${t} threads, the library used ${rec.threads}`);
    times.get(t).push(rec.index_s);
    const out = {
      bench: 'build-scaling',
      engine: rec.engine,
      backend: rec.backend,
      mode: rec.mode,
      kernel: rec.kernel,
      storage: 'memory',
      dataset: rec.dataset,
      n: rec.n,
      dim: rec.dim,
      threads: t,
      repeat: r,
      params: rec.params,
      index_s: rec.index_s,
      build_cpu_s: rec.build_cpu_s,
      git_rev: rec.git_rev,
      git_dirty: rec.git_dirty,
      date: rec.date,
      cpu: rec.cpu,
      cores: rec.cores,
      load_avg_1m: rec.load_avg_1m,
    };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  }
}
const [t1, t2] = [threads[0], threads[threads.length - 1]];
const summary = {
  bench: 'build-scaling-summary',
  dataset: values.dataset,
  [`median_index_s_${t1}`]: median(times.get(t1)),
  [`median_index_s_${t2}`]: median(times.get(t2)),
  speedup: Number((median(times.get(t1)) / median(times.get(t2))).toFixed(3)),
};
process.stdout.write(`${JSON.stringify(summary)}\n`);
