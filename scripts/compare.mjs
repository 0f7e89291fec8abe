#!/usr/bin/env node
// Compares `node bench/ef-sweep.mjs --json` runs (`horosvec bench --json`; JSONL files such as
// bench-results/ef-sweep/<rev>.jsonl; horosvec's index, exact search, hnswlib).
//
//   node scripts/compare.mjs FILE.jsonl... [--targets 0.9,0.95,0.99] [--field qps|qps_cpu] [--dataset NAME]
//
// --field qps_cpu reads the throughput per CPU second of the process instead of per wall second
// (less sensitive to other jobs on a shared machine). --dataset NAME keeps the records of that
// dataset only (`NAME` or `NAME/<file>`), as when one file holds several (bench-results/ef-sweep/<rev>.jsonl).
//
// Groups the records by (dataset, k, engine, mode, backend, build parameters other than ef); when a
// file holds several runs (several records for one ef), each ef point takes the best QPS of its
// runs and the group the smallest build_s (other jobs on a machine only slow a run down). Prints,
// per group, the single-query QPS at each target recall@k, read off the group's ef sweep
// (bench/lib/qps-at-recall.mjs): between the two consecutive points (by recall) whose mean recalls
// bracket the target, log(QPS) is linear in recall. "≥ x" means the lowest-recall point already
// exceeds the target (x is its QPS, a lower bound); "not reached" means no ef does. Then
// the build seconds, bytes per vector, and, for each horosvec group against each hnswlib group of
// the same dataset and k, the ratios horosvec / hnswlib. Plain Node, no dependencies.

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { qpsAtRecall } from '../bench/lib/qps-at-recall.mjs';

const DEFAULT_TARGETS = [0.9, 0.95, 0.99];

function usage(msg) {
  process.stderr.write(`compare: ${msg}\nusage: node scripts/compare.mjs FILE.jsonl... [--targets 0.9,0.95,0.99] [--field qps|qps_cpu] [--dataset NAME]\n`);
  process.exit(2);
}

function parseCli(argv) {
  const files = [];
  let targets = DEFAULT_TARGETS;
  let field = 'qps';
  let dataset = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--targets') {
      const v = argv[++i];
      if (v === undefined) usage('--targets needs a comma-separated list');
      targets = v.split(',').map(Number);
      if (targets.some((t) => !Number.isFinite(t) || t <= 0 || t > 1)) usage(`--targets must be numbers in (0, 1], got "${v}"`);
    } else if (a === '--field') {
      field = argv[++i];
      if (field !== 'qps' && field !== 'qps_cpu') usage(`--field must be qps or qps_cpu, got "${field}"`);
    } else if (a === '--dataset') {
      dataset = argv[++i];
      if (dataset === undefined || dataset === '') usage('--dataset needs a name');
    } else if (a === '--help' || a === '-h') {
      process.stdout.write('usage: node scripts/compare.mjs FILE.jsonl... [--targets 0.9,0.95,0.99] [--field qps|qps_cpu] [--dataset NAME]\n');
      process.exit(0);
    } else if (a.startsWith('--')) {
      usage(`unknown option ${a}`);
    } else {
      files.push(a);
    }
  }
  if (files.length === 0) usage('give at least one JSONL file');
  return { files, targets, field, dataset };
}

function readRecords(files, field, dataset) {
  const recs = [];
  for (const f of files) {
    let text;
    try {
      text = readFileSync(f, 'utf8');
    } catch (e) {
      process.stderr.write(`compare: cannot read ${f}: ${e.message}\n`);
      process.exit(1);
    }
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      let r;
      try {
        r = JSON.parse(line);
      } catch (e) {
        process.stderr.write(`compare: ${f}:${i + 1}: not JSON (${e.message})\n`);
        process.exit(1);
      }
      if (dataset !== null && String(r.dataset).split('/')[0] !== dataset) return;
      if (typeof r[field] !== 'number' || typeof r.recall_mean !== 'number') {
        process.stderr.write(`compare: ${f}:${i + 1}: no numeric ${field} / recall_mean, skipped\n`);
        return;
      }
      recs.push({ ...r, qps: r[field], _file: basename(f) });
    });
  }
  return recs;
}

/** Build parameters other than ef, as "name=value" text. */
function buildParams(r) {
  const p = { ...(r.params ?? {}) };
  delete p.ef;
  return Object.entries(p)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

function groupRecords(recs) {
  const groups = new Map();
  for (const r of recs) {
    const bp = buildParams(r);
    const key = JSON.stringify([r.dataset, r.k, r.engine, r.mode, r.backend, bp, r.n, r.binary_sha256 ?? null]);
    if (!groups.has(key)) {
      groups.set(key, {
        dataset: r.dataset,
        k: r.k,
        n: r.n,
        dim: r.dim,
        metric: r.metric,
        engine: r.engine,
        mode: r.mode,
        backend: r.backend,
        params: bp,
        binary: r.binary_sha256 ? r.binary_sha256.slice(0, 8) : '-',
        points: [],
      });
    }
    groups.get(key).points.push(r);
  }
  for (const g of groups.values()) {
    // Repeated runs (several records for one ef): best of the runs, as ann-benchmarks does, since
    // other work on the machine only ever slows a run down. Recall must agree (same seed, same data).
    const byEf = new Map();
    for (const p of g.points) {
      const ef = p.params?.ef ?? 0;
      if (!byEf.has(ef)) byEf.set(ef, []);
      byEf.get(ef).push(p);
    }
    g.runs = Math.max(...[...byEf.values()].map((v) => v.length));
    g.points = [...byEf.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([ef, runs]) => {
        const recalls = runs.map((r) => r.recall_mean);
        if (Math.max(...recalls) - Math.min(...recalls) > 1e-9) {
          process.stderr.write(`compare: ${g.engine} ${g.mode} ${g.backend} ef ${ef}: recall differs between runs (${recalls.join(', ')}); using the mean\n`);
        }
        const best = runs.reduce((a, b) => (b.qps > a.qps ? b : a));
        return { ...best, recall_mean: recalls.reduce((x, y) => x + y, 0) / recalls.length, qps: best.qps };
      });
    const all = [...byEf.values()].flat();
    const builds = all.map((p) => p.build_s).filter((x) => typeof x === 'number');
    const first = g.points[0];
    g.build_s = builds.length > 0 ? Math.min(...builds) : null;
    g.bytes_per_vector = first.bytes_per_vector ?? null;
    const minOf = (f) => {
      const xs = all.map((p) => p[f]).filter((x) => typeof x === 'number');
      return xs.length > 0 ? Math.min(...xs) : null;
    };
    g.build_cpu_s = minOf('build_cpu_s');
    g.rss_bpv = minOf('rss_build_bytes_per_vector');
    g.engine_version = first.engine_version ?? null;
    g.revs = [...new Set(all.map((p) => p.git_rev ?? '?'))].join(',');
    g.maxRecall = Math.max(...g.points.map((p) => p.recall_mean));
  }
  return [...groups.values()];
}

/**
 * QPS at a target recall (bench/lib/qps-at-recall.mjs): { qps, bound } where bound is true when
 * the lowest-recall point is already above the target (the QPS is then a lower bound); null when
 * no point reaches it.
 */
function atRecall(points, target) {
  const v = qpsAtRecall(points.map((p) => ({ recall: p.recall_mean, qps: p.qps })), target);
  return v.kind === 'none' ? null : { qps: v.qps, bound: v.kind === 'lower' };
}

function fmtQps(v) {
  if (v === null) return 'not reached';
  return `${v.bound ? '≥ ' : ''}${v.qps.toFixed(0)}`;
}

function fmtNum(x, d) {
  return typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : 'n/a';
}

function table(header, rows) {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  return [line(header), w.map((x) => '-'.repeat(x)).join('  '), ...rows.map(line)].join('\n');
}

function main() {
  const { files, targets, field, dataset } = parseCli(process.argv.slice(2));
  const groups = groupRecords(readRecords(files, field, dataset));
  if (groups.length === 0) {
    process.stderr.write('compare: no records\n');
    process.exit(1);
  }
  const out = [];
  const datasets = [...new Set(groups.map((g) => `${g.dataset}\u0000${g.k}`))];
  for (const dk of datasets) {
    const [dataset, kStr] = dk.split('\u0000');
    const gs = groups.filter((g) => g.dataset === dataset && String(g.k) === kStr);
    const g0 = gs[0];
    out.push(`${dataset}: n ${g0.n}, dim ${g0.dim}, metric ${g0.metric}; single-query ${field === 'qps' ? 'QPS (per wall second)' : 'QPS per CPU second'} at mean recall@${g0.k} (log-linear between bracketing ef points)`);
    const header = ['engine', 'mode', 'backend', 'params', ...targets.map((t) => `QPS@${t}`), 'max recall', 'build_s', 'build cpu-s', 'bytes/vec', 'rss B/vec', 'points', 'runs', 'binary', 'rev'];
    for (const g of gs) g.at = targets.map((t) => atRecall(g.points, t));
    const rows = gs.map((g) => [
      `${g.engine} ${g.engine_version ?? ''}`.trim(),
      g.mode,
      g.backend,
      g.params === '' ? '-' : g.params,
      ...g.at.map(fmtQps),
      fmtNum(g.maxRecall, 4),
      fmtNum(g.build_s, 1),
      fmtNum(g.build_cpu_s, 1),
      fmtNum(g.bytes_per_vector, 0),
      fmtNum(g.rss_bpv, 0),
      String(g.points.length),
      String(g.runs),
      g.binary,
      g.revs,
    ]);
    // params column is text: left-align the first four columns
    const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells) => cells.map((c, i) => (i < 4 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
    out.push([line(header), w.map((x) => '-'.repeat(x)).join('  '), ...rows.map(line)].join('\n'));

    const ours = gs.filter((g) => g.engine === 'horosvec' && !g.mode.endsWith('-batch'));
    const theirs = gs.filter((g) => g.engine === 'hnswlib');
    if (ours.length > 0 && theirs.length > 0) {
      out.push('');
      out.push('ratios horosvec / hnswlib (QPS: > 1 means horosvec is faster; build and bytes: < 1 means horosvec is smaller)');
      const rh = ['horosvec', 'vs hnswlib', ...targets.map((t) => `QPS@${t}`), 'build_s', 'build cpu-s', 'bytes/vec', 'rss B/vec'];
      const rr = [];
      for (const a of ours) {
        for (const b of theirs) {
          const cells = targets.map((_, i) => {
            const x = a.at[i];
            const y = b.at[i];
            if (x === null || y === null) return 'n/a';
            const mark = x.bound && !y.bound ? '≥ ' : !x.bound && y.bound ? '≤ ' : x.bound && y.bound ? '~ ' : '';
            return `${mark}${(x.qps / y.qps).toFixed(2)}×`;
          });
          const ratio = (x, y) => (typeof x === 'number' && typeof y === 'number' && y > 0 ? `${(x / y).toFixed(2)}×` : 'n/a');
          rr.push([`${a.mode} ${a.backend}`, `${b.mode} ${b.params}`, ...cells, ratio(a.build_s, b.build_s), ratio(a.build_cpu_s, b.build_cpu_s), ratio(a.bytes_per_vector, b.bytes_per_vector), ratio(a.rss_bpv, b.rss_bpv)]);
        }
      }
      out.push(table(rh, rr));
    }
    out.push('');
  }
  out.push('QPS@r: "≥ x" = reached at the smallest ef (x is a lower bound); ratio marks: "≥"/"≤" when one side is such a bound.');
  out.push('runs > 1: per ef the best QPS of the runs; build_s, build cpu-s and rss B/vec the smallest of the runs.');
  out.push('binary: sha256 prefix of the horosvec binary measured. build cpu-s: CPU seconds of the process over the build (all threads).');
  out.push('bytes/vec: horosvec index = bytes the graph walk touches (codes, factors, graph; float32 vectors for the rerank not included);');
  out.push('horosvec exact = stored float32 vectors; hnswlib = estimate from its memory layout (vectors included). build_s: horosvec = add + buildIndex;');
  out.push('hnswlib = addPoint loop (one thread). rss B/vec: growth of the process RSS over the build / n (everything resident: vectors,');
  out.push('index, allocator slack, transient build memory not returned; under wasm the linear memory never shrinks).');
  process.stdout.write(`${out.join('\n')}\n`);
}

main();
