#!/usr/bin/env node
// Compares horosvec's standing against its competitors between two revisions of the records in
// bench-results/<bench>/<rev>.jsonl (bench/lib/results.mjs):
//
//   node bench/compare.mjs [--head REV] [--base REV] [--in DIR] [--base-in DIR] [--tolerance 0.05]
//
// For `search`: per horosvec backend / mode, QPS at recall 0.90, 0.95 and 0.99 against hnswlib (ANN
// modes) and against sqlite-vec (its exact scan reaches every target; horosvec's exact mode reads
// its QPS as is), where both sides reach the target (bench/lib/qps-at-recall.mjs). For `writes`:
// horosvec ops/s against sqlite-vec (and hnswlib, if it has write records) per op, storage
// medium, durability, writers and batch. Then, per ratio, its relative change from base to head;
// changes beyond ±tolerance (default 5 %) are flagged with "!!" and make the exit code 3.
//
// Each side is a view of the records, as bench/report.mjs builds one: per engine / backend / mode
// the newest records at or before the side's revision (in the order of the files' record dates).
// --head REV (default HEAD's short hash): the files named REV or REV-dirty and everything older;
// --base REV (default: everything older than head's file of that bench, i.e. the committed
// records the head run is to be judged against). The revision each series comes from is printed.
// --in DIR: the results folder (default bench-results); --base-in DIR: the base side's folder when
// it is another one, e.g. two runs at one revision (the second with `npm run bench -- --out DIR`):
//   node bench/compare.mjs --in DIR --base-in bench-results   (the run-to-run noise)
// there the base defaults to every revision of that folder (newest per series).
// Exit codes: 0 no ratio moved beyond the tolerance, 3 some did, 1 missing records, 2 bad usage.
import { parseArgs } from 'node:util';
import { gitRev } from './lib/provenance.mjs';
import { qpsAtRecall } from './lib/qps-at-recall.mjs';
import { RESULTS, RecordError, newestPerSeries, revisions } from './lib/results.mjs';

const TARGETS = [0.9, 0.95, 0.99];
const EXACT_MODES = new Set(['exact', 'vec0-scan', 'brute-force']);

function usage(msg) {
  process.stderr.write(`compare: ${msg}\nusage: node bench/compare.mjs [--head REV] [--base REV] [--in DIR] [--base-in DIR] [--tolerance 0.05]\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      head: { type: 'string' },
      base: { type: 'string' },
      in: { type: 'string' },
      'base-in': { type: 'string' },
      tolerance: { type: 'string', default: '0.05' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (e) {
  usage(e.message);
}
if (values.help) {
  process.stdout.write('usage: node bench/compare.mjs [--head REV] [--base REV] [--in DIR] [--base-in DIR] [--tolerance 0.05] (see the header of bench/compare.mjs)\n');
  process.exit(0);
}
const tolerance = Number(values.tolerance);
if (!Number.isFinite(tolerance) || tolerance <= 0) usage(`--tolerance must be a positive number, got "${values.tolerance}"`);
const root = values.in ?? RESULTS;
const baseRoot = values['base-in'] ?? root;
const headRev = values.head === undefined || values.head === 'HEAD' ? gitRev() : values.head;
if (!headRev) usage('no --head given and no git revision to default to');

/** Whether file label `label` (`<rev>` or `<rev>-dirty`) is revision `rev` (a short or long hash). */
const isRev = (label, rev) => {
  const bare = label.replace(/-dirty$/, '');
  return label === rev || bare === rev || (rev.length > bare.length && rev.startsWith(bare));
};

/** `{ head, base }` views of `bench` (records with `_rev`), or a reason why there is none. */
function sides(bench) {
  let revs;
  let other;
  try {
    revs = revisions(root, bench);
    other = baseRoot === root ? revs : revisions(baseRoot, bench);
  } catch (e) {
    if (e instanceof RecordError) return { missing: e.message };
    throw e;
  }
  const last = revs.findLastIndex((r) => isRev(r.rev, headRev));
  if (last < 0) return { missing: `no ${bench} records at ${headRev} (files: ${revs.map((r) => r.rev).join(', ') || 'none'})` };
  const first = revs.findIndex((r) => isRev(r.rev, headRev));
  let baseRevs;
  if (values.base !== undefined) {
    const b = other.findLastIndex((r) => isRev(r.rev, values.base));
    if (b < 0) return { missing: `no ${bench} records at ${values.base}` };
    baseRevs = other.slice(0, b + 1);
  } else if (baseRoot !== root) {
    baseRevs = other;
    if (!baseRevs.length) return { missing: `no ${bench} records in ${baseRoot}` };
  } else {
    baseRevs = revs.slice(0, first);
    if (!baseRevs.length) return { missing: `no ${bench} records older than ${headRev}` };
  }
  return { head: newestPerSeries(revs.slice(0, last + 1)), base: newestPerSeries(baseRevs) };
}

const ok = (rs) => rs.filter((r) => r.status === 'ok');
const label = (r) => `${r.backend === 'native' || !r.backend ? '' : `${r.backend} `}${r.mode}`;
const fmtRatio = (x) => (x === null ? '—' : `${x.kind === 'lower' ? '≥' : x.kind === 'upper' ? '≤' : ''}${x.value.toFixed(2)}×`);

/** QPS of a search series at `target`: its exact modes' median QPS, or the curve's interpolation. */
function atTarget(records, target) {
  if (EXACT_MODES.has(records[0].mode)) {
    const q = records.map((r) => r.qps).filter(Number.isFinite).sort((a, b) => a - b);
    return q.length ? { kind: 'exact', qps: q[(q.length - 1) >> 1] } : { kind: 'none' };
  }
  return qpsAtRecall(records.map((r) => ({ recall: r.recall_mean, qps: r.qps })), target);
}

/** `h / c` of two QPS-at-recall values, `{ value, kind }`; null unless both reach the target. */
function targetRatio(h, c) {
  if (h.kind === 'none' || c.kind === 'none') return null;
  if (h.kind === 'lower' && c.kind === 'lower') return null; // both only bounds: no ratio
  return { value: h.qps / c.qps, kind: h.kind === 'lower' ? 'lower' : c.kind === 'lower' ? 'upper' : 'exact' };
}

/** Search ratios of a view: Map key → { ratio, revs }. */
function searchRatios(view) {
  const out = new Map();
  const series = new Map();
  for (const r of ok(view)) {
    const k = JSON.stringify([r.engine, r.backend, r.mode, r.dataset, r.n, r.k, r.metric]);
    if (!series.has(k)) series.set(k, []);
    series.get(k).push(r);
  }
  const all = [...series.values()];
  for (const h of all.filter((rs) => rs[0].engine === 'horosvec')) {
    const exact = EXACT_MODES.has(h[0].mode);
    const same = (rs) => rs[0].dataset === h[0].dataset && rs[0].n === h[0].n && rs[0].k === h[0].k && rs[0].metric === h[0].metric;
    for (const c of all.filter((rs) => same(rs) && ((rs[0].engine === 'hnswlib' && !exact) || rs[0].engine === 'sqlite-vec'))) {
      const targets = exact && EXACT_MODES.has(c[0].mode) ? [null] : TARGETS;
      for (const t of targets) {
        const ratio = targetRatio(atTarget(h, t ?? 1), atTarget(c, t ?? 1));
        const what = t === null ? 'QPS (both exact)' : `QPS at recall ${t.toFixed(2)}`;
        out.set(JSON.stringify([label(h[0]), c[0].engine, label(c[0]), what]), { cells: [`horosvec ${label(h[0])}`, `${c[0].engine} ${c[0].mode}`, what], ratio, revs: `${h[0]._rev} / ${c[0]._rev}` });
      }
    }
  }
  return out;
}

/** Write ratios of a view: horosvec ops/s over each competitor's, same op, medium, durability, writers, batch. */
function writeRatios(view) {
  const out = new Map();
  const caseKey = (r) => JSON.stringify([r.op, r.storage, r.durability, r.writers, r.batch, r.dataset, r.n]);
  const rs = ok(view).filter((r) => Number.isFinite(r.ops_per_s) && r.ops_per_s > 0);
  for (const h of rs.filter((r) => r.engine === 'horosvec')) {
    for (const c of rs.filter((r) => ['sqlite-vec', 'hnswlib'].includes(r.engine) && caseKey(r) === caseKey(h))) {
      const what = `${h.op} ${h.storage} durability=${h.durability} writers=${h.writers} batch=${h.batch}`;
      out.set(JSON.stringify([label(h), c.engine, label(c), what]), { cells: [`horosvec ${label(h)}`, `${c.engine} ${c.mode}`, what], ratio: { value: h.ops_per_s / c.ops_per_s, kind: 'exact' }, revs: `${h._rev} / ${c._rev}` });
    }
  }
  return out;
}

function table(header, rows) {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i < 3 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ').trimEnd();
  return [line(header), w.map((x) => '-'.repeat(x)).join('  '), ...rows.map(line)].join('\n');
}

let flagged = 0;
let shown = 0;
const out = [];
for (const [bench, ratios] of [['search', searchRatios], ['writes', writeRatios]]) {
  const s = sides(bench);
  out.push(`## ${bench}`);
  if (s.missing) {
    out.push(`  (skipped: ${s.missing})`, '');
    continue;
  }
  const head = ratios(s.head);
  const base = ratios(s.base);
  const rows = [];
  for (const [key, h] of head) {
    const b = base.get(key);
    const change = h.ratio && b?.ratio ? h.ratio.value / b.ratio.value - 1 : null;
    const flag = change !== null && Math.abs(change) > tolerance;
    if (flag) flagged++;
    rows.push([...h.cells, fmtRatio(b?.ratio ?? null), fmtRatio(h.ratio), change === null ? '—' : `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %`, flag ? '!!' : '', b?.revs ?? '—', h.revs]);
  }
  for (const [key, b] of base) if (!head.has(key)) rows.push([...b.cells, fmtRatio(b.ratio), '—', '—', '', b.revs, '—']);
  shown += rows.length;
  out.push(table(['horosvec', 'competitor', 'what', 'base', 'head', 'change', '', 'base revs (h / c)', 'head revs (h / c)'], rows), '');
}
out.push(`head: ${headRev}${root === baseRoot ? '' : ` in ${root}`}${values.base ? `, base: ${values.base}` : baseRoot === root ? ', base: the newest older records of each series' : `, base: the newest records of each series in ${baseRoot}`}; ratios horosvec / competitor (> 1: horosvec faster);`);
out.push(`"!!": the ratio moved by more than ±${(tolerance * 100).toFixed(1)} % between base and head; ≥ / ≤: one side is a lower bound (reached at its smallest ef).`);
process.stdout.write(`${out.join('\n')}\n`);
if (shown === 0) process.exit(1);
process.exit(flagged ? 3 : 0);
