#!/usr/bin/env node
// bench/report.mjs: turns the benchmark matrix's JSONL records (bench/README.md defines them) into
// BENCHMARKS.md and SVG plots. Every number in the output is computed from the records; the same
// records always give byte-identical files (everything is sorted, nothing depends on the clock).
//
// Usage: node bench/report.mjs [--in bench-results] [--out BENCHMARKS.md] [--plots bench-results/plots]
//        (or `npm run bench:report`; paths are relative to the repository root)
//
// Reads --in/<sweep>/<rev>.jsonl for every sweep (the layout of bench/lib/results.mjs; blank lines
// skipped; a malformed line stops the report with its file and line number, exit 1) and keeps, per
// sweep, the newest revision's records of each engine / backend / mode that were measured on the
// machine of the sweep's newest record (the others are listed, not compared); writes --out, and writes the
// plots into --plots (vega-lite compiled to vega, rendered headless to SVG), linked from --out by
// relative paths.
//
// Conventions used throughout:
// - A "series" is one engine / backend / mode / parameter set (the search sweep leaves `ef` out of
//   it: the ef values are the points of the series).
// - Ratios are horosvec speed / competitor speed (QPS, ops/s, or the inverse of build, open or
//   first-query time): above 1 horosvec is faster, below 1 it is slower ("Where horosvec loses"
//   lists the latter).
// - ANN modes are compared with the competitors' ANN modes and exact modes (`EXACT_MODES`) with
//   their exact modes. Any horosvec mode is a subject (the dims/sizes/metrics sweeps may carry the
//   code width horosvec picks by dimension, e.g. vamana-rabitq4); modes not in MODE_ORDER sort
//   after the known ones, by name.
import { readFileSync, readdirSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { join, dirname, resolve, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as vega from 'vega';
import * as vl from 'vega-lite';
import { qpsAtRecall as curveQpsAt } from './lib/qps-at-recall.mjs';
import { revisions, newestPerSeries, RecordError } from './lib/results.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULTS = { in: 'bench-results', out: 'BENCHMARKS.md', plots: 'bench-results/plots' };

const SWEEPS = ['search', 'concurrency', 'build', 'writes', 'open', 'dims', 'sizes', 'metrics', 'wasm', 'filtered', 'browser'];
const ENGINE_ORDER = ['horosvec', 'hnswlib', 'usearch', 'zvec', 'lancedb', 'faiss', 'sqlite-vec', 'hnswlib-wasm', 'edgevec', 'voy', 'orama'];
const BACKEND_ORDER = ['native', 'wasm', 'js'];
const MODE_ORDER = [
  'exact', 'vamana', 'vamana-rabitq1', 'vamana-rabitq1-hr', 'vamana-rabitq2', 'vamana-rabitq4', 'vamana-rabitq8',
  'segmented-vamana-rabitq1', 'segmented-vamana-rabitq2', 'segmented-vamana-rabitq4', 'segmented-vamana-rabitq8',
  'vamana-exact', 'hnsw', 'hnsw-int8-refine', 'hnsw-rabitq', 'hnsw-bq-rescore', 'ivf-flat', 'ivf-pq', 'ivf-rq', 'kd-tree', 'vec0-scan', 'brute-force',
];
const METRIC_ORDER = ['l2', 'cosine', 'ip', 'l1'];
const OP_ORDER = ['insert-single', 'insert-batch', 'update', 'delete'];
const DURABILITY_ORDER = ['full', 'normal', 'off'];
const EXACT_MODES = new Set(['exact', 'vec0-scan', 'brute-force']);

const SUBJECT = 'horosvec';
const SEARCH_COMPETITORS = ['hnswlib', 'usearch']; // also the competitors of the dims/sizes/metrics sweeps
// the search, concurrency and open sweeps' competitors: those, and the engines issue 18 added (a
// ratio column for these only where the set has a series of them)
const MATRIX_COMPETITORS = [...SEARCH_COMPETITORS, 'zvec', 'lancedb', 'faiss', 'hnswlib-wasm', 'edgevec', 'voy'];
// the search-width knobs of the search-like sweeps: the fields of `params` a series sweeps (its
// other params name the series); LanceDB sweeps two at once (nprobes × refine_factor), EdgeVec's
// hnsw-bq-rescore its rescore factor
const KNOBS = ['ef', 'nprobes', 'refine_factor', 'rescore_factor'];
const TARGETS = [0.9, 0.95, 0.99, 0.995, 0.998];
const HEADLINE_CLIENTS = [1, 4];
const RECALL_MATCH = 0.02; // concurrency records compare only when their recall_mean differ by at most this
const PLOT_TARGET = 0.95; // the recall at which dims.svg and sizes.svg plot QPS
// the sections whose comparisons "Where horosvec loses" counts and lists, in the document's order
const LOSS_SECTIONS = ['search', 'concurrency', 'build', 'writes', 'open', 'dims', 'sizes', 'metrics', 'filtered', 'browser'];
const DASH = '—';

// ---------------------------------------------------------------------------------------------
// Small helpers: failure, comparison, grouping, statistics

function fail(message) {
  process.stderr.write(`bench/report.mjs: ${message}\n`);
  process.exit(1);
}

const isNum = (x) => typeof x === 'number' && Number.isFinite(x);

/** Natural order (numbers inside strings compare as numbers), independent of the locale. */
function cmpStr(a, b) {
  const ta = a.split(/(\d+(?:\.\d+)?)/);
  const tb = b.split(/(\d+(?:\.\d+)?)/);
  for (let i = 0; i < Math.min(ta.length, tb.length); i++) {
    if (ta[i] === tb[i]) continue;
    if (i % 2 === 1) return Number(ta[i]) - Number(tb[i]) || (ta[i] < tb[i] ? -1 : 1);
    return ta[i] < tb[i] ? -1 : 1;
  }
  return ta.length - tb.length;
}

/** null/undefined last, numbers numerically, booleans false first, everything else as text. */
function cmpVal(a, b) {
  if (a === b) return 0;
  if (a === undefined || a === null) return 1;
  if (b === undefined || b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a ? 1 : -1;
  return cmpStr(String(a), String(b));
}

/** A comparator from key functions, applied in turn. */
const by = (...keys) => (a, b) => {
  for (const key of keys) {
    const c = cmpVal(key(a), key(b));
    if (c !== 0) return c;
  }
  return 0;
};

const codeUnitCmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/** JSON with every object's keys sorted: the same value always gives the same text. */
function canonicalJson(v) {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort(codeUnitCmp).filter((k) => v[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** `cmp`, then the whole record as the last tie-break, so that no order depends on the input's. */
const total = (cmp) => (a, b) => cmp(a, b) || codeUnitCmp(canonicalJson(a), canonicalJson(b));

const rank = (order, v) => (order.includes(v) ? order.indexOf(v) : order.length);

/** Groups items by a string key; returns [key, items][] sorted by `cmp` applied to each group's first item. */
function groupBy(items, keyFn, cmp) {
  const map = new Map();
  items = [...items].sort((a, b) => codeUnitCmp(canonicalJson(a), canonicalJson(b)));
  for (const it of items) {
    const k = keyFn(it);
    if (!map.has(k)) map.set(k, []);
    map.get(k).push(it);
  }
  return [...map.entries()].sort((a, b) => cmp(a[1][0], b[1][0]) || cmpStr(a[0], b[0]));
}

const uniq = (values) => [...new Set(values.filter((v) => v !== undefined && v !== null && v !== ''))].sort(cmpVal);

/** The lower median (an element of the data, so it is deterministic for any count). */
function median(values) {
  const v = values.filter(isNum).sort((a, b) => a - b);
  return v.length ? v[(v.length - 1) >> 1] : null;
}

const isExact = (mode) => EXACT_MODES.has(mode);
const clientsOf = (r) => (isNum(r.concurrency) ? r.concurrency : 1);
const recallOf = (r) => (isNum(r.recall_mean) ? r.recall_mean : isExact(r.mode) ? 1 : null);

// ---------------------------------------------------------------------------------------------
// Number and text formatting

const withSeparators = (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const fmtInt = (x) => (isNum(x) ? withSeparators(String(Math.round(x))) : DASH);

/** 3 significant digits; from 100 up, a rounded integer with separators (never an exponent). */
function fmtSig3(x) {
  if (!isNum(x)) return DASH;
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 100) {
    const step = 10 ** (Math.floor(Math.log10(a)) - 2);
    return withSeparators(String(Math.round(x / step) * step));
  }
  return x.toPrecision(3);
}

const fmtQps = (x) => (isNum(x) && Math.abs(x) < 1 ? fmtSig3(x) : fmtInt(x));
const fmtRecall = (x) => (isNum(x) ? x.toFixed(4) : DASH);
const fmtMs = fmtSig3;
const fmtSeconds = fmtSig3;
const fmtBytes = (x) => (isNum(x) && Math.abs(x) >= 100 ? fmtInt(x) : fmtSig3(x));
const fmtRatio = (x) => (isNum(x) ? `${x.toFixed(2)}×` : DASH);
// a target recall with as many decimals as it has (0.95, 0.995, 0.998), never rounded to 2
const fmtTarget = (t) => String(Number(t.toFixed(4)));
const fmtBool = (x) => (x === true ? 'yes' : x === false ? 'no' : DASH);
const text = (x) => (x === undefined || x === null || x === '' ? DASH : String(x));

function fmtParamValue(v) {
  if (v && typeof v === 'object') return canonicalJson(v);
  return String(v);
}

/** `k=v, …` in key order, leaving out `omit`. */
function paramsText(params, omit = []) {
  if (!params || typeof params !== 'object') return '';
  return Object.keys(params)
    .filter((k) => !omit.includes(k))
    .sort(cmpStr)
    .map((k) => `${k}=${fmtParamValue(params[k])}`)
    .join(', ');
}

// the CPU's identity and SIMD features when the record has them (older records: the model name only);
// two hosts named alike ("AMD EPYC") may differ in AVX-512, which some engines use
const machineText = (m) => {
  if (!m) return DASH;
  const id = m.cpu_id ? ` (${m.cpu_id}${m.simd ? `; ${m.simd.includes('avx512f') ? 'AVX-512' : 'no AVX-512'}` : ''})` : '';
  return `${text(m.cpu)}${id}, ${text(m.cores)} cores`;
};
const commandText = (c) => (Array.isArray(c) ? c.join(' ') : text(c));
const revText = (r) => `${text(r.git_rev)}${r.git_dirty === true ? ' (dirty)' : ''}`;

function storageText(r) {
  const d = r.storage_detail;
  if (d === undefined || d === null || d === '') return text(r.storage);
  const detail = typeof d === 'object' ? paramsText(d) : String(d);
  return `${text(r.storage)} (${detail})`;
}

const setText = (r, fields) => fields
  .filter((f) => r[f] !== undefined && r[f] !== null)
  .map((f) => (f === 'dataset' || f === 'metric' ? r[f] : f === 'n' ? `n=${fmtInt(r.n)}` : `${f}=${r[f]}`))
  .join(' · ');

// ---------------------------------------------------------------------------------------------
// Markdown

const escapeCell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * A markdown table. `cols` are [title, value(item), align] with align 'r' for numbers.
 */
function table(cols, items) {
  const head = `| ${cols.map((c) => escapeCell(c[0])).join(' | ')} |`;
  const rule = `|${cols.map((c) => (c[2] === 'r' ? '---:' : '---')).join('|')}|`;
  const rows = items.map((it) => `| ${cols.map((c) => escapeCell(text(c[1](it)))).join(' | ')} |`);
  return [head, rule, ...rows, ''];
}

// ---------------------------------------------------------------------------------------------
// Arguments and input

function parseArgs(argv) {
  const opts = { ...DEFAULTS };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      process.stdout.write('usage: node bench/report.mjs [--in bench-results] [--out BENCHMARKS.md] [--plots bench-results/plots]\n');
      process.exit(0);
    }
    const m = /^--(in|out|plots)(?:=(.*))?$/.exec(a);
    if (!m) fail(`unknown argument ${a} (see --help)`);
    const value = m[2] ?? argv[++i];
    if (value === undefined || value === '') fail(`--${m[1]} needs a value`);
    opts[m[1]] = value;
  }
  return { in: resolve(ROOT, opts.in), out: resolve(ROOT, opts.out), plots: resolve(ROOT, opts.plots) };
}

/** Why a parsed line is not a record, or null when it is one. */
function recordProblem(r) {
  if (!r || typeof r !== 'object' || Array.isArray(r)) return 'not a JSON object';
  if (!SWEEPS.includes(r.sweep)) return `unknown sweep ${JSON.stringify(r.sweep)} (expected one of ${SWEEPS.join(', ')})`;
  if (!['ok', 'skipped', 'failed'].includes(r.status)) return `status must be "ok", "skipped" or "failed", not ${JSON.stringify(r.status)}`;
  if (typeof r.engine !== 'string' || !r.engine) return 'no engine';
  if (r.status !== 'ok' && (typeof r.skip_reason !== 'string' || !r.skip_reason)) return `a ${r.status} record without skip_reason`;
  if (r.status === 'ok' && (typeof r.mode !== 'string' || !r.mode)) return 'no mode';
  return null;
}

// A record's machine context: CPU (with its identity and SIMD where recorded), memory, Node.
const ctxKey = (r) => JSON.stringify([machineText(r.machine), r.machine?.mem_gb ?? null, r.node ?? null]);

/**
 * The records the report shows: for every sweep, the newest records of each engine / backend /
 * mode among `<dir>/<sweep>/<rev>.jsonl` (bench/lib/results.mjs), kept only where they were
 * measured in the machine context of the sweep's newest record, so that every ratio compares two
 * engines run on one machine. `{ records, stale }`: `stale` lists the series left out (their
 * newest records are from another machine), which the run context names.
 */
function loadRecords(dir) {
  try {
    if (!statSync(dir).isDirectory()) fail(`${dir} is not a directory`);
  } catch (e) {
    fail(`cannot read ${dir}: ${e.message}`);
  }
  const records = [];
  const stale = [];
  for (const sweep of SWEEPS) {
    let revs;
    try {
      revs = revisions(dir, sweep);
    } catch (e) {
      fail(e instanceof RecordError ? e.message : `cannot read ${join(dir, sweep)}: ${e.message}`);
    }
    for (const { file, records: rs } of revs) {
      rs.forEach((r, i) => {
        const problem = recordProblem(r);
        if (problem) fail(`${file}: record ${i + 1}: ${problem}`);
        if (r.sweep !== sweep) fail(`${file}: record ${i + 1}: sweep ${JSON.stringify(r.sweep)} in the ${sweep}/ folder`);
      });
    }
    const chosen = newestPerSeries(revs);
    const dated = chosen.filter((r) => typeof r.date === 'string').sort(by((r) => r.date));
    const current = dated.length ? ctxKey(dated[dated.length - 1]) : null;
    for (const r of chosen) {
      if (current !== null && ctxKey(r) !== current) {
        stale.push(r);
        continue;
      }
      delete r._rev;
      records.push(r);
    }
  }
  if (!records.length) fail(`no records in ${dir}/<sweep>/*.jsonl (sweeps ${SWEEPS.join(', ')})`);
  return { records, stale };
}

// ---------------------------------------------------------------------------------------------
// Series: one engine / backend / mode / parameter set

const seriesCmp = by(
  (s) => rank(ENGINE_ORDER, s.engine), (s) => s.engine,
  (s) => rank(BACKEND_ORDER, s.backend), (s) => s.backend,
  (s) => rank(MODE_ORDER, s.mode), (s) => s.mode,
  (s) => s.params,
);

const seriesOf = (r, omit = []) => ({ engine: r.engine, backend: r.backend, mode: r.mode, params: paramsText(r.params, omit) });
const seriesKey = (s) => JSON.stringify([s.engine, s.backend, s.mode, s.params]);
const baseLabel = (s) => `${s.engine}${s.backend && s.backend !== 'native' ? ` [${s.backend}]` : ''} ${s.mode}`;
const fullLabel = (s) => `${baseLabel(s)}${s.params ? ` (${s.params})` : ''}`;

/** The records split into series (sorted), each { engine, backend, mode, params, records }. */
function seriesList(records, omit = []) {
  return groupBy(records, (r) => seriesKey(seriesOf(r, omit)), (a, b) => seriesCmp(seriesOf(a, omit), seriesOf(b, omit)))
    .map(([, rs]) => ({ ...seriesOf(rs[0], omit), records: rs }));
}

/** Labels made of the first parts, adding further parts only while two items share a label. */
function uniqueLabels(items, parts) {
  let labels = [];
  for (let used = 1; used <= parts.length; used++) {
    labels = items.map((it) => parts.slice(0, used).map((p) => p(it)).filter(Boolean).join(' '));
    if (new Set(labels).size === labels.length) break;
  }
  return labels;
}

/** The competitor series of a horosvec series: same exactness, engine in `engines` (all others when null). */
const competitorsOf = (s, all, engines) => all.filter((c) => c.engine !== SUBJECT
  && (engines === null || engines.includes(c.engine))
  && isExact(c.mode) === isExact(s.mode));

// ---------------------------------------------------------------------------------------------
// QPS at a target recall, and ratios between two such values

/**
 * { kind: 'exact' | 'lower' | 'none', qps } of a series' records: the interpolation of
 * bench/lib/qps-at-recall.mjs over its ef points; exact modes have recall 1 everywhere, so their
 * (median) QPS is the answer.
 */
function qpsAtRecall(records, target, exact) {
  if (exact) {
    const qps = median(records.map((r) => r.qps));
    return qps === null ? { kind: 'none' } : { kind: 'exact', qps };
  }
  return curveQpsAt(frontier(records).map((r) => ({ recall: r.recall_mean, qps: r.qps })), target);
}

/** The knobs a series' records vary (of KNOBS). */
const knobsOf = (records) => KNOBS.filter((k) => new Set(records.map((r) => JSON.stringify(r.params?.[k] ?? null))).size > 1);

/**
 * A series' records as one recall–QPS curve: all of them when one knob (ef) is swept; when two
 * are (LanceDB's nprobes × refine_factor), only the Pareto frontier (no other point has a higher
 * recall and a higher QPS), the best a user tuning both knobs gets.
 */
function frontier(records) {
  if (knobsOf(records).length < 2) return records;
  const pts = records.filter((r) => isNum(r.recall_mean) && isNum(r.qps)).sort((a, b) => b.recall_mean - a.recall_mean || b.qps - a.qps);
  let best = -Infinity;
  return pts.filter((r) => {
    if (r.qps <= best) return false;
    best = r.qps;
    return true;
  });
}

const fmtAtRecall = (v) => (v.kind === 'none' ? 'not reached' : v.kind === 'lower' ? `≥ ${fmtQps(v.qps)}` : fmtQps(v.qps));

/** horosvec value / competitor value: { text, value, loss } (value null when there is no number). */
function targetRatio(h, c) {
  if (h.kind === 'none') return c.kind === 'none' ? { text: DASH, value: null } : { text: 'not reached', value: 0, loss: true };
  if (c.kind === 'none') return { text: '∞', value: null };
  if (h.kind === 'lower' && c.kind === 'lower') return { text: '?', value: null };
  const value = h.qps / c.qps;
  const prefix = h.kind === 'lower' ? '≥ ' : c.kind === 'lower' ? '≤ ' : '';
  return { text: `${prefix}${fmtRatio(value)}`, value, loss: value < 1 };
}

function speedRatio(hSpeed, cSpeed) {
  if (!isNum(hSpeed) || !isNum(cSpeed) || hSpeed <= 0 || cSpeed <= 0) return { text: DASH, value: null };
  const value = hSpeed / cSpeed;
  return { text: fmtRatio(value), value, loss: value < 1 };
}

const RATIO_LEGEND = '∞: the competitor does not reach the target; "not reached": horosvec does not; ≥ / ≤: one side is a lower bound; ?: both are.';

/**
 * The "horosvec / `engine`" cell of series `s` (which carries `targets`, QPS at TARGETS): the
 * ratios at every target against each of that engine's series among `series`, each comparison
 * recorded in `out` under `section`; '' on a competitor's row, DASH when the engine has no series.
 */
function targetRatioCell(s, series, engine, out, section, setName) {
  if (s.engine !== SUBJECT) return '';
  const comps = competitorsOf(s, series, [engine]);
  if (!comps.length) return DASH;
  return comps.map((c) => {
    const ratios = TARGETS.map((t, i) => {
      const r = targetRatio(s.targets[i], c.targets[i]);
      compared(out, r, { section, setting: setName, subject: fullLabel(s), competitor: fullLabel(c), what: `QPS at recall ${fmtTarget(t)}` });
      return r.text;
    }).join(' / ');
    return comps.length > 1 ? `${c.mode}${c.params ? ` (${c.params})` : ''}: ${ratios}` : ratios;
  }).join('<br>');
}

const ratioTitle = (engine) => `${SUBJECT} / ${engine} (${TARGETS.map(fmtTarget).join(' / ')})`;

// ---------------------------------------------------------------------------------------------
// Plots: vega-lite specs, rendered later by renderPlots()

const slug = (s) => String(s).replace(/[^A-Za-z0-9._-]+/g, '-');

/** The title block every plot carries: what, then the data (dataset, n, k) and where it ran. */
function plotTitle(what, records) {
  const ns = uniq(records.map((r) => r.n));
  const nText = ns.length > 4 ? `${fmtInt(ns[0])}–${fmtInt(ns[ns.length - 1])}` : ns.map(fmtInt).join(', ');
  const ks = uniq(records.map((r) => r.k));
  const data = [`dataset ${uniq(records.map((r) => r.dataset)).join(', ') || DASH}`, `n=${nText || DASH}`];
  const metrics = uniq(records.map((r) => r.metric));
  if (metrics.length) data.push(metrics.join(', '));
  if (ks.length) data.push(`k=${ks.join(', ')}`);
  const where = [uniq(records.map((r) => machineText(r.machine))).join('; '), `storage: ${uniq(records.map((r) => r.storage)).join(', ') || DASH}`];
  return { text: what, subtitle: [data.join(' · '), where.join(' · ')], anchor: 'start', subtitleFontSize: 11 };
}

function colorScale(labels) {
  return { domain: labels, scheme: labels.length > 10 ? 'tableau20' : 'tableau10' };
}

function baseSpec(title, values) {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: { values },
    background: 'white',
    config: { legend: { labelLimit: 400 }, axis: { labelLimit: 300 } },
  };
}

function lineSpec({ title, values, labels, x, y }) {
  return {
    ...baseSpec(title, values),
    width: 560,
    height: 360,
    mark: { type: 'line', point: { filled: true, size: 40 }, strokeWidth: 1.5 },
    encoding: {
      x,
      y,
      color: { field: 'series', type: 'nominal', title: 'engine / mode', scale: colorScale(labels), sort: labels },
      order: { field: 'order', type: 'quantitative' },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Sections. Each returns markdown lines; plots and losses are collected into `out`.

function headerSection(opts) {
  const input = relative(ROOT, opts.in).split(sep).join('/') || '.';
  return [
    '# horosvec benchmarks',
    '',
    '<!-- Generated by `npm run bench:report` (bench/report.mjs). Do not edit by hand. -->',
    '',
    `> **Generated by \`npm run bench:report\`** (\`node bench/report.mjs\`) from the JSONL records in \`${input}/<sweep>/<rev>.jsonl\` (per sweep, the newest revision of each engine / backend / mode, among those measured on the machine of the sweep's newest record: no ratio compares two machines).`,
    '> Do not edit this file by hand: re-run the benchmarks (`npm run bench`) and then the report.',
    '> Every number below is computed from the records.',
    '',
    'How to read it:',
    '',
    '- Ratios are horosvec speed / competitor speed (QPS, ops/s, or 1 / build, open or first-query time): above 1.00× horosvec is faster.',
    `- QPS at a target recall interpolates log(QPS) linearly in recall between the two ef points that bracket the target; "≥ x": the lowest-recall point is already above the target (x is its QPS, a lower bound); "not reached": no point reaches it. Exact modes (${[...EXACT_MODES].join(', ')}) have recall 1: their QPS is shown as is.`,
    '- ANN modes are compared with the competitors\' ANN modes, exact modes with their exact modes.',
    `- Concurrency comparisons require recall_mean within ${RECALL_MATCH} of each other.`,
    '',
  ];
}

function contextSection(records, stale) {
  const md = ['## Run context', ''];
  for (const [, rs] of groupBy(records, ctxKey, by((r) => ctxKey(r)))) {
    const m = rs[0].machine ?? {};
    md.push(`### ${machineText(m)}, ${text(m.mem_gb)} GB · Node ${text(rs[0].node)}`, '');
    if (m.simd) md.push(`- SIMD: ${m.simd.join(', ') || DASH}`);
    const dates = rs.map((r) => r.date).filter((d) => typeof d === 'string')
      .sort(by((d) => (Number.isNaN(Date.parse(d)) ? null : Date.parse(d)), (d) => d));
    const skipped = rs.filter((r) => r.status === 'skipped').length;
    const failed = rs.filter((r) => r.status === 'failed').length;
    md.push(
      `- records: ${fmtInt(rs.length)} (${fmtInt(skipped)} skipped, ${fmtInt(failed)} failed) in the sweeps ${uniq(rs.map((r) => r.sweep)).sort(by((s) => rank(SWEEPS, s))).join(', ')}`,
      `- git revision(s): ${uniq(rs.map(revText)).map((v) => `\`${v}\``).join(', ')}`,
      `- dates: ${dates.length ? `${dates[0]} – ${dates[dates.length - 1]}` : DASH}`,
      `- storage: ${uniq(rs.filter((r) => r.storage).map(storageText)).join('; ') || DASH}`,
      '- command(s):',
      '',
      '```',
      ...uniq(rs.map((r) => commandText(r.command))),
      '```',
      '',
    );
  }
  if (stale.length) {
    md.push(
      '### Not shown: series whose newest records are from another machine',
      '',
      'A sweep compares only series measured on the machine of its newest record; these series were last measured elsewhere (re-run them to bring them back).',
      '',
      ...table([
        ['sweep', (x) => x.sweep],
        ['engine / mode', (x) => x.label],
        ['machine', (x) => x.machine],
        ['revision(s)', (x) => x.revs],
      ], groupBy(stale, (r) => JSON.stringify([r.sweep, baseLabel(seriesOf(r)), ctxKey(r)]), by((r) => rank(SWEEPS, r.sweep), (r) => baseLabel(seriesOf(r)))).map(([, rs]) => ({
        sweep: rs[0].sweep, label: baseLabel(seriesOf(rs[0])), machine: machineText(rs[0].machine), revs: uniq(rs.map(revText)).join(', '),
      }))),
      '',
    );
  }
  return md;
}

// --- search ----------------------------------------------------------------------------------

function searchSection(records, out) {
  const ok = records.filter((r) => r.sweep === 'search' && r.status === 'ok');
  const md = ['## Search (recall–QPS)', ''];
  if (!ok.length) return [...md, 'No search records.', ''];
  const plotKey = (r) => JSON.stringify([r.dataset, r.metric, r.k]);
  const plotCmp = by((r) => r.dataset, (r) => rank(METRIC_ORDER, r.metric), (r) => r.metric, (r) => r.k);
  for (const [, rs] of groupBy(ok, plotKey, plotCmp)) {
    const { dataset, metric, k } = rs[0];
    md.push(`### ${setText(rs[0], ['dataset', 'metric', 'k'])}`, '');
    const file = `search-${slug(dataset)}-${slug(metric)}-k${slug(k)}.svg`;
    const one = rs.filter((r) => clientsOf(r) === 1);
    if (one.length) {
      out.plots.push({ file, spec: searchPlot(one) });
      md.push(`![recall vs QPS, ${dataset} ${metric} k=${k}](${out.link(file)})`, '');
    }
    const setKey = (r) => JSON.stringify([r.n, clientsOf(r)]);
    for (const [, set] of groupBy(rs, setKey, by((r) => r.n, clientsOf))) {
      md.push(...searchSet(set, out));
    }
  }
  return md;
}

function searchPlot(records) {
  const series = seriesList(records, KNOBS).flatMap((s) => groupBy(s.records, (r) => String(r.n), by((r) => r.n))
    .map(([, rs]) => ({ ...s, n: rs[0].n, records: rs })));
  const labels = uniqueLabels(series, [baseLabel, (s) => s.params && `(${s.params})`, (s) => `n=${fmtInt(s.n)}`]);
  const values = series.flatMap((s, i) => frontier(s.records)
    .filter((r) => isNum(r.qps) && r.qps > 0 && isNum(recallOf(r)))
    .sort(total(by((r) => r.params?.ef, recallOf)))
    .map((r, j) => ({ series: labels[i], recall: recallOf(r), qps: r.qps, order: j })));
  return lineSpec({
    title: plotTitle('Recall vs QPS (1 client)', records),
    values,
    labels,
    x: { field: 'recall', type: 'quantitative', title: 'recall@k (mean)', scale: { zero: false, padding: 10 } },
    y: { field: 'qps', type: 'quantitative', title: 'QPS (log scale)', scale: { type: 'log' } },
  });
}

/** One comparison set: same dataset, n, metric, k and clients. */
function searchSet(records, out) {
  const first = records[0];
  const setName = `${setText(first, ['dataset', 'n', 'metric', 'k'])} · ${clientsOf(first)} client${clientsOf(first) === 1 ? '' : 's'}`;
  const series = seriesList(records, KNOBS);
  for (const s of series) s.targets = TARGETS.map((t) => qpsAtRecall(s.records, t, isExact(s.mode)));
  const md = [`#### ${setName}`, ''];
  md.push(...table([
    ['engine', (s) => s.engine],
    ['backend', (s) => s.backend],
    ['mode', (s) => s.mode],
    ['params', (s) => s.params],
    ...TARGETS.map((t, i) => [`QPS @${fmtTarget(t)}`, (s) => fmtAtRecall(s.targets[i]), 'r']),
    ['build_s', (s) => fmtSeconds(median(s.records.map((r) => r.build_s))), 'r'],
    ['bytes/vector', (s) => fmtBytes(median(s.records.map((r) => r.bytes_per_vector))), 'r'],
    ...MATRIX_COMPETITORS.filter((e) => SEARCH_COMPETITORS.includes(e) || series.some((s) => s.engine === e))
      .map((e) => [ratioTitle(e), (s) => targetRatioCell(s, series, e, out, 'search', setName), 'r']),
  ], series));
  md.push(RATIO_LEGEND, '');
  for (const s of series) md.push(...searchSeriesTable(s));
  return md;
}

function searchSeriesTable(s) {
  const rs = s.records;
  // the knob columns: ef (every ANN series so far), or the knobs the series carries (LanceDB)
  const carried = KNOBS.filter((k) => rs.some((r) => r.params && k in r.params));
  const knobCols = carried.length ? carried : ['ef'];
  const apis = uniq(rs.map((r) => r.api));
  const meta = [
    `version ${uniq(rs.map((r) => r.engine_version)).join(', ') || DASH}`,
    ...(apis.length ? [`api ${apis.join(', ')}`] : []),
    `kernel ${uniq(rs.map((r) => r.kernel)).join(', ') || DASH}`,
    `threads ${uniq(rs.map((r) => r.threads)).join(', ') || DASH}`,
    `${uniq(rs.map((r) => r.concurrency_model)).join(', ') || DASH}`,
    `storage ${uniq(rs.map((r) => r.storage)).join(', ') || DASH}`,
  ];
  return [
    `##### ${fullLabel(s)}`,
    '',
    meta.join(' · '),
    '',
    ...table([
      ...knobCols.map((k) => [k, (r) => (r.params?.[k] === null ? 'none' : r.params?.[k]), 'r']),
      ['recall_mean', (r) => fmtRecall(r.recall_mean), 'r'],
      ['recall_min', (r) => fmtRecall(r.recall_min), 'r'],
      ['QPS', (r) => fmtQps(r.qps), 'r'],
      ['p50 ms', (r) => fmtMs(r.p50_ms), 'r'],
      ['p99 ms', (r) => fmtMs(r.p99_ms), 'r'],
    ], [...rs].sort(total(by(...knobCols.map((k) => (r) => r.params?.[k]), (r) => r.recall_mean, (r) => r.qps)))),
    ...(knobsOf(rs).length > 1 ? ['QPS at a recall: read off the Pareto frontier of these points (both knobs tuned).', ''] : []),
    `QPS at recall ${TARGETS.map((t, i) => `${fmtTarget(t)}: ${fmtAtRecall(s.targets[i])}`).join(', ')}`,
    '',
  ];
}

// --- concurrency ------------------------------------------------------------------------------

function concurrencySection(records, out) {
  const ok = records.filter((r) => r.sweep === 'concurrency' && r.status === 'ok');
  const md = ['## Concurrency', ''];
  if (!ok.length) return [...md, 'No concurrency records.', ''];
  for (const [, rs] of groupBy(ok, (r) => String(r.dataset), by((r) => r.dataset))) {
    const file = `concurrency-${slug(rs[0].dataset)}.svg`;
    out.plots.push({ file, spec: concurrencyPlot(rs) });
    md.push(`### ${rs[0].dataset}`, '', `![QPS vs clients, ${rs[0].dataset}](${out.link(file)})`, '');
    const setKey = (r) => JSON.stringify([r.n, r.metric, r.k]);
    for (const [, set] of groupBy(rs, setKey, by((r) => r.n, (r) => rank(METRIC_ORDER, r.metric), (r) => r.metric, (r) => r.k))) {
      md.push(...concurrencySet(set, out));
    }
  }
  return md;
}

function concurrencyPlot(records) {
  const series = seriesList(records).flatMap((s) => groupBy(s.records, (r) => JSON.stringify([r.n, r.metric, r.k]), by((r) => r.n, (r) => r.metric, (r) => r.k))
    .map(([, rs]) => ({ ...s, set: setText(rs[0], ['n', 'metric', 'k']), records: rs })));
  const atEf = (s) => {
    const ef = s.records[0].params?.ef;
    return `${ef === undefined ? '' : `ef=${ef}, `}recall ${fmtRecall(median(s.records.map(recallOf)))}`;
  };
  const labels = uniqueLabels(series, [(s) => `${baseLabel(s)} (${atEf(s)})`, (s) => s.params && `(${s.params})`, (s) => s.set]);
  const values = series.flatMap((s, i) => s.records.filter((r) => isNum(r.qps) && r.qps > 0)
    .sort(total(by(clientsOf))).map((r, j) => ({ series: labels[i], clients: clientsOf(r), qps: r.qps, order: j })));
  const clients = uniq(values.map((v) => v.clients));
  return lineSpec({
    title: plotTitle('QPS vs concurrent clients', records),
    values,
    labels,
    x: { field: 'clients', type: 'quantitative', title: 'concurrent clients', scale: { type: 'log', base: 2, nice: false, padding: 16 }, axis: { values: clients, format: 'd' } },
    y: { field: 'qps', type: 'quantitative', title: 'QPS (log scale)', scale: { type: 'log' } },
  });
}

function concurrencySet(records, out) {
  const setName = setText(records[0], ['dataset', 'n', 'metric', 'k']);
  const series = seriesList(records);
  const rows = series.flatMap((s) => {
    const base = median(s.records.filter((r) => clientsOf(r) === 1).map((r) => r.qps));
    return [...s.records].sort(total(by(clientsOf, (r) => r.qps))).map((r) => ({ s, r, speedup: base ? r.qps / base : null }));
  });
  const md = [`#### ${setName}`, ''];
  md.push(...table([
    ['engine', (x) => x.s.engine],
    ['backend', (x) => x.s.backend],
    ['mode', (x) => x.s.mode],
    ['params', (x) => x.s.params],
    ['model', (x) => x.r.concurrency_model],
    ...(uniq(rows.map((x) => x.r.api)).length ? [['api', (x) => x.r.api]] : []),
    ['clients', (x) => clientsOf(x.r), 'r'],
    ['recall_mean', (x) => fmtRecall(x.r.recall_mean), 'r'],
    ['QPS', (x) => fmtQps(x.r.qps), 'r'],
    ['p99 ms', (x) => fmtMs(x.r.p99_ms), 'r'],
    ['speed-up vs 1 client', (x) => fmtRatio(x.speedup), 'r'],
  ], rows));
  const head = concurrencyHeadline(series, setName, out);
  if (head.length) {
    md.push(`Headline: ${SUBJECT} / competitor at ${HEADLINE_CLIENTS.join(' and ')} clients (compared only at matching recall)`, '');
    md.push(...table([
      [SUBJECT, (x) => fullLabel(x.h)],
      ['competitor', (x) => fullLabel(x.c)],
      ['clients', (x) => x.clients, 'r'],
      [`${SUBJECT} recall`, (x) => fmtRecall(recallOf(x.hr)), 'r'],
      [`${SUBJECT} QPS`, (x) => fmtQps(x.hr.qps), 'r'],
      ['competitor recall', (x) => fmtRecall(recallOf(x.cr)), 'r'],
      ['competitor QPS', (x) => fmtQps(x.cr.qps), 'r'],
      ['ratio', (x) => x.ratio, 'r'],
    ], head));
  }
  return md;
}

function concurrencyHeadline(series, setName, out) {
  const at = (s, c) => [...s.records].filter((r) => clientsOf(r) === c).sort(total(by((r) => r.qps)))[0];
  const rows = [];
  for (const h of series.filter((s) => s.engine === SUBJECT)) {
    for (const c of competitorsOf(h, series, MATRIX_COMPETITORS)) {
      for (const clients of HEADLINE_CLIENTS) {
        const [hr, cr] = [at(h, clients), at(c, clients)];
        if (!hr || !cr) continue;
        const [rh, rc] = [recallOf(hr), recallOf(cr)];
        let ratio;
        if (!isNum(rh) || !isNum(rc) || Math.abs(rh - rc) > RECALL_MATCH) {
          ratio = isNum(rh) && isNum(rc) ? `recall differs by ${Math.abs(rh - rc).toFixed(4)}: not compared` : 'no recall: not compared';
        } else {
          const r = speedRatio(hr.qps, cr.qps);
          compared(out, r, { section: 'concurrency', setting: setName, subject: fullLabel(h), competitor: fullLabel(c), what: `QPS at ${clients} client${clients === 1 ? '' : 's'} (recall ${fmtRecall(rh)} vs ${fmtRecall(rc)})` });
          ratio = r.text;
        }
        rows.push({ h, c, clients, hr, cr, ratio });
      }
    }
  }
  return rows;
}

// --- build ------------------------------------------------------------------------------------

function buildSection(records, out) {
  const ok = records.filter((r) => r.sweep === 'build' && r.status === 'ok');
  const md = ['## Build', ''];
  if (!ok.length) return [...md, 'No build records.', ''];
  for (const [, rs] of groupBy(ok, (r) => String(r.dataset), by((r) => r.dataset))) {
    const file = `build-${slug(rs[0].dataset)}.svg`;
    out.plots.push({ file, spec: buildPlot(rs) });
    md.push(`### ${rs[0].dataset}`, '', `![build time, ${rs[0].dataset}](${out.link(file)})`, '');
    const setKey = (r) => JSON.stringify([r.n, r.metric]);
    for (const [, set] of groupBy(rs, setKey, by((r) => r.n, (r) => rank(METRIC_ORDER, r.metric), (r) => r.metric))) {
      md.push(...buildSet(set, out));
    }
  }
  return md;
}

const buildRowCmp = by((r) => seriesKey(seriesOf(r)), (r) => r.threads, (r) => r.build_s);

function buildPlot(records) {
  const rows = groupBy(records, (r) => JSON.stringify([seriesKey(seriesOf(r)), r.threads, r.n, r.metric]),
    (a, b) => seriesCmp(seriesOf(a), seriesOf(b)) || by((r) => r.threads, (r) => r.n, (r) => r.metric)(a, b))
    .map(([, rs]) => ({ ...seriesOf(rs[0]), threads: rs[0].threads, set: setText(rs[0], ['n', 'metric']), build_s: median(rs.map((r) => r.build_s)) }));
  const labels = uniqueLabels(rows, [(x) => `${baseLabel(x)} · ${text(x.threads)} thread${x.threads === 1 ? '' : 's'}`, (x) => x.params && `(${x.params})`, (x) => x.set]);
  const values = rows.filter((x) => isNum(x.build_s)).map((x) => ({ label: labels[rows.indexOf(x)], engine: x.engine, build_s: x.build_s }));
  const engines = uniq(values.map((v) => v.engine)).sort(by((e) => rank(ENGINE_ORDER, e), (e) => e));
  return {
    ...baseSpec(plotTitle('Index build time (wall)', records), values),
    width: 560,
    height: { step: 22 },
    mark: 'bar',
    encoding: {
      y: { field: 'label', type: 'nominal', title: null, sort: labels, axis: { labelLimit: 400 } },
      x: { field: 'build_s', type: 'quantitative', title: 'build time (s)' },
      color: { field: 'engine', type: 'nominal', scale: colorScale(engines), sort: engines },
    },
  };
}

function buildSet(records, out) {
  const setName = setText(records[0], ['dataset', 'n', 'metric']);
  const rows = [...records].sort(total((a, b) => seriesCmp(seriesOf(a), seriesOf(b)) || buildRowCmp(a, b)));
  const md = [`#### ${setName}`, ''];
  md.push(...table([
    ['engine', (r) => r.engine],
    ['backend', (r) => r.backend],
    ['mode', (r) => r.mode],
    ['threads', (r) => r.threads, 'r'],
    ['params', (r) => paramsText(r.params)],
    ['build_s', (r) => fmtSeconds(r.build_s), 'r'],
    ['inserts/s', (r) => fmtInt(r.insert_qps), 'r'],
    ['bytes/vector', (r) => fmtBytes(r.bytes_per_vector), 'r'],
    ['RSS MB', (r) => fmtBytes(r.rss_mb), 'r'],
  ], rows));
  const cmp = [];
  for (const h of rows.filter((r) => r.engine === SUBJECT)) {
    for (const c of rows.filter((r) => r.engine !== SUBJECT && r.threads === h.threads && isExact(r.mode) === isExact(h.mode))) {
      const ratio = speedRatio(1 / h.build_s, 1 / c.build_s);
      compared(out, ratio, { section: 'build', setting: setName, subject: fullLabel(seriesOf(h)), competitor: fullLabel(seriesOf(c)), what: `build time, ${text(h.threads)} thread(s) (${fmtSeconds(h.build_s)} s vs ${fmtSeconds(c.build_s)} s)` });
      cmp.push({ h, c, ratio });
    }
  }
  if (cmp.length) {
    md.push(`Build speed, ${SUBJECT} / competitor at the same thread count (competitor build_s / ${SUBJECT} build_s):`, '');
    md.push(...table([
      [SUBJECT, (x) => fullLabel(seriesOf(x.h))],
      ['competitor', (x) => fullLabel(seriesOf(x.c))],
      ['threads', (x) => x.h.threads, 'r'],
      [`${SUBJECT} build_s`, (x) => fmtSeconds(x.h.build_s), 'r'],
      ['competitor build_s', (x) => fmtSeconds(x.c.build_s), 'r'],
      ['ratio', (x) => x.ratio.text, 'r'],
    ], cmp));
  }
  return md;
}

// --- writes -----------------------------------------------------------------------------------

const writeCmp = by(
  (r) => rank(OP_ORDER, r.op), (r) => r.op, (r) => rank(DURABILITY_ORDER, r.durability), (r) => r.durability,
  (r) => r.writers, (r) => r.batch, (r) => r.storage,
);
const writeCase = (r) => `${text(r.op)} · ${text(r.durability)} · ${text(r.writers)} writer(s) · batch ${text(r.batch)} · ${text(r.storage)}`;

function writesSection(records, out) {
  const ok = records.filter((r) => r.sweep === 'writes' && r.status === 'ok');
  const md = ['## Writes', ''];
  if (!ok.length) return [...md, 'No writes records.', ''];
  out.plots.push({ file: 'writes.svg', spec: writesPlot(ok) });
  md.push(`![write throughput](${out.link('writes.svg')})`, '');
  for (const [, set] of groupBy(ok, (r) => JSON.stringify([r.dataset, r.n]), by((r) => r.dataset, (r) => r.n))) {
    const setName = setText(set[0], ['dataset', 'n', 'dim']);
    const rows = [...set].sort(total((a, b) => writeCmp(a, b) || seriesCmp(seriesOf(a), seriesOf(b)) || cmpVal(a.ops_per_s, b.ops_per_s)));
    md.push(`### ${setName}`, '');
    md.push(...table([
      ['engine', (r) => r.engine],
      ['backend', (r) => r.backend],
      ['mode', (r) => r.mode],
      ['op', (r) => r.op],
      ['durability', (r) => r.durability],
      ['writers', (r) => r.writers, 'r'],
      ['batch', (r) => r.batch, 'r'],
      ['storage', (r) => r.storage],
      ['ops/s', (r) => fmtQps(r.ops_per_s), 'r'],
      ['p50 ms', (r) => fmtMs(r.p50_ms), 'r'],
      ['p99 ms', (r) => fmtMs(r.p99_ms), 'r'],
    ], rows));
    md.push(...writesComparison(rows, setName, out));
  }
  return md;
}

function writesComparison(rows, setName, out) {
  const cmp = [];
  for (const h of rows.filter((r) => r.engine === SUBJECT)) {
    for (const c of rows.filter((r) => r.engine !== SUBJECT && writeCmp(r, h) === 0)) {
      const ratio = speedRatio(h.ops_per_s, c.ops_per_s);
      compared(out, ratio, { section: 'writes', setting: setName, subject: fullLabel(seriesOf(h)), competitor: fullLabel(seriesOf(c)), what: `ops/s, ${writeCase(h)}` });
      cmp.push({ h, c, ratio });
    }
  }
  if (!cmp.length) return [];
  return [`Write throughput, ${SUBJECT} / competitor (same op, durability, writers, batch and storage):`, '', ...table([
    ['case', (x) => writeCase(x.h)],
    [SUBJECT, (x) => fullLabel(seriesOf(x.h))],
    ['competitor', (x) => fullLabel(seriesOf(x.c))],
    [`${SUBJECT} ops/s`, (x) => fmtQps(x.h.ops_per_s), 'r'],
    ['competitor ops/s', (x) => fmtQps(x.c.ops_per_s), 'r'],
    ['ratio', (x) => x.ratio.text, 'r'],
  ], cmp)];
}

/** ops/s bars (log scale): one panel per durability (columns) and storage (rows), a group per op. */
function writesPlot(records) {
  const rows = [...records].filter((r) => isNum(r.ops_per_s) && r.ops_per_s > 0)
    .sort(total((a, b) => writeCmp(a, b) || seriesCmp(seriesOf(a), seriesOf(b))));
  const opCase = (r) => [r.op, r.writers !== 1 && `${text(r.writers)} writers`, r.batch !== 1 && `batch ${text(r.batch)}`].filter(Boolean).join(' · ');
  const series = seriesList(rows);
  const labels = uniqueLabels(series, [baseLabel, (s) => s.params && `(${s.params})`]);
  const labelOf = new Map(series.map((s, i) => [seriesKey(s), labels[i]]));
  const keyed = groupBy(rows, (r) => JSON.stringify([opCase(r), r.durability, r.storage, seriesKey(seriesOf(r))]),
    (a, b) => writeCmp(a, b) || seriesCmp(seriesOf(a), seriesOf(b)));
  const values = keyed.map(([, rs]) => ({
    op: opCase(rs[0]),
    durability: text(rs[0].durability),
    storage: text(rs[0].storage),
    series: labelOf.get(seriesKey(seriesOf(rs[0]))),
    ops: median(rs.map((r) => r.ops_per_s)),
  }));
  const ops = [...new Set(rows.map(opCase))];
  const durabilities = uniq(values.map((v) => v.durability)).sort(by((d) => rank(DURABILITY_ORDER, d), (d) => d));
  return {
    ...baseSpec(plotTitle('Write throughput by op and durability', records), values),
    facet: {
      column: { field: 'durability', type: 'nominal', sort: durabilities, title: 'durability' },
      row: { field: 'storage', type: 'nominal', sort: uniq(values.map((v) => v.storage)), title: 'storage' },
    },
    spec: {
      width: { step: 12 * Math.max(1, labels.length) + 8 },
      height: 220,
      mark: 'bar',
      encoding: {
        x: { field: 'op', type: 'nominal', title: 'op', sort: ops, axis: { labelAngle: -35 } },
        xOffset: { field: 'series', type: 'nominal', sort: labels },
        y: { field: 'ops', type: 'quantitative', title: 'ops/s (log scale)', scale: { type: 'log' }, stack: null },
        color: { field: 'series', type: 'nominal', title: 'engine / mode', scale: colorScale(labels), sort: labels },
      },
    },
  };
}

// --- open -------------------------------------------------------------------------------------

const coldText = (r) => (r.cold === true ? 'cold' : r.cold === false ? 'warm' : `cold ${DASH}`);

function openSection(records, out) {
  const ok = records.filter((r) => r.sweep === 'open' && r.status === 'ok');
  const md = ['## Open and memory', ''];
  if (!ok.length) return [...md, 'No open records.', ''];
  const rows = [...ok].sort(total((a, b) => by((r) => r.dataset, (r) => r.n)(a, b)
    || seriesCmp(seriesOf(a), seriesOf(b)) || by((r) => r.storage, (r) => r.cold, (r) => r.open_ms)(a, b)));
  md.push(...table([
    ['dataset', (r) => r.dataset],
    ['n', (r) => fmtInt(r.n), 'r'],
    ['engine', (r) => r.engine],
    ['backend', (r) => r.backend],
    ['mode', (r) => r.mode],
    ['open method', (r) => r.open_method],
    ['storage', (r) => r.storage],
    ['cold', (r) => fmtBool(r.cold)],
    ['open ms', (r) => fmtMs(r.open_ms), 'r'],
    ['first query ms', (r) => fmtMs(r.first_query_ms), 'r'],
    ['resident bytes/vector', (r) => fmtBytes(r.resident_bytes_per_vector), 'r'],
    ['disk bytes/vector', (r) => fmtBytes(r.disk_bytes_per_vector), 'r'],
  ], rows));
  return [...md, ...openComparison(rows, out)];
}

/** Every horosvec open record against the competitors' of the same dataset, n, storage and cold flag. */
function openComparison(rows, out) {
  const caseKey = (r) => JSON.stringify([r.dataset, r.n, r.storage, r.cold]);
  const caseCmp = by((r) => r.dataset, (r) => r.n, (r) => r.storage, (r) => r.cold);
  const pairs = [];
  for (const h of rows.filter((r) => r.engine === SUBJECT)) {
    for (const c of rows.filter((r) => MATRIX_COMPETITORS.includes(r.engine) && caseKey(r) === caseKey(h))) pairs.push({ h, c });
  }
  if (!pairs.length) return [];
  pairs.sort((a, b) => caseCmp(a.h, b.h) || seriesCmp(seriesOf(a.h), seriesOf(b.h)) || seriesCmp(seriesOf(a.c), seriesOf(b.c))
    || codeUnitCmp(canonicalJson(a.h), canonicalJson(b.h)) || codeUnitCmp(canonicalJson(a.c), canonicalJson(b.c)));
  for (const x of pairs) {
    const setting = `${setText(x.h, ['dataset', 'n'])} · ${text(x.h.storage)} · ${coldText(x.h)}`;
    const loss = { section: 'open', setting, subject: fullLabel(seriesOf(x.h)), competitor: fullLabel(seriesOf(x.c)) };
    x.open = speedRatio(1 / x.h.open_ms, 1 / x.c.open_ms);
    compared(out, x.open, { ...loss, what: `open_ms (${fmtMs(x.h.open_ms)} ms vs ${fmtMs(x.c.open_ms)} ms)` });
    x.first = speedRatio(1 / x.h.first_query_ms, 1 / x.c.first_query_ms);
    compared(out, x.first, { ...loss, what: `first_query_ms (${fmtMs(x.h.first_query_ms)} ms vs ${fmtMs(x.c.first_query_ms)} ms)` });
  }
  return [
    `Open, ${SUBJECT} / competitor (same dataset, n, storage and cold flag; competitor ms / ${SUBJECT} ms, so above 1.00× ${SUBJECT} is faster; the open methods differ, see the table above):`,
    '',
    ...table([
      ['data', (x) => setText(x.h, ['dataset', 'n'])],
      ['storage', (x) => x.h.storage],
      ['cold', (x) => fmtBool(x.h.cold)],
      [SUBJECT, (x) => fullLabel(seriesOf(x.h))],
      ['competitor', (x) => fullLabel(seriesOf(x.c))],
      [`${SUBJECT} open ms`, (x) => fmtMs(x.h.open_ms), 'r'],
      ['competitor open ms', (x) => fmtMs(x.c.open_ms), 'r'],
      ['open ratio', (x) => x.open.text, 'r'],
      [`${SUBJECT} first query ms`, (x) => fmtMs(x.h.first_query_ms), 'r'],
      ['competitor first query ms', (x) => fmtMs(x.c.first_query_ms), 'r'],
      ['first query ratio', (x) => x.first.text, 'r'],
    ], pairs),
  ];
}

// --- dims, sizes, metrics, wasm -----------------------------------------------------------------

/**
 * A sweep over one field (dim, n, metric): per value and series, QPS at the target recalls (the
 * records carry an ef sweep) and every horosvec series / the hnswlib and usearch series of the same
 * setting (dataset, n, dim, metric, k) at those targets, then every point; optionally a plot of QPS
 * at PLOT_TARGET and build time.
 */
function keyedSweepSection({ sweep, title, field, fieldTitle, fmtField, plotFile, xScale }, records, out) {
  const ok = records.filter((r) => r.sweep === sweep && r.status === 'ok');
  const md = [`### ${title}`, ''];
  if (!ok.length) return [...md, `No ${sweep} records.`, ''];
  const fieldKey = field === 'metric' ? (r) => rank(METRIC_ORDER, r.metric) : (r) => r[field];
  const others = ['dataset', 'n', 'dim', 'metric', 'k'].filter((f) => f !== field);
  const cmp = (a, b) => cmpVal(fieldKey(a), fieldKey(b)) || cmpVal(a[field], b[field])
    || seriesCmp(seriesOf(a, KNOBS), seriesOf(b, KNOBS)) || by(...others.map((f) => (r) => r[f]))(a, b);
  const groups = groupBy(ok, (r) => JSON.stringify([r[field], seriesKey(seriesOf(r, KNOBS)), ...others.map((f) => r[f])]), cmp)
    .map(([, rs]) => ({
      ...seriesOf(rs[0], KNOBS),
      first: rs[0],
      records: rs,
      targets: TARGETS.map((t) => qpsAtRecall(rs, t, isExact(rs[0].mode))),
      plotValue: qpsAtRecall(rs, PLOT_TARGET, isExact(rs[0].mode)),
      build_s: median(rs.map((r) => r.build_s)),
    }));
  const settingFields = ['dataset', 'n', 'dim', 'metric', 'k'];
  const settingKey = (g) => JSON.stringify(settingFields.map((f) => g.first[f] ?? null));
  const settings = new Map();
  for (const g of groups) {
    if (!settings.has(settingKey(g))) settings.set(settingKey(g), []);
    settings.get(settingKey(g)).push(g);
  }
  const ratioCol = (engine) => [ratioTitle(engine),
    (g) => targetRatioCell(g, settings.get(settingKey(g)), engine, out, sweep, setText(g.first, settingFields)), 'r'];
  if (plotFile) {
    out.plots.push({ file: plotFile, spec: keyedSweepPlot(groups, ok, field, fieldTitle, xScale) });
    md.push(`![${title}](${out.link(plotFile)})`, '');
  }
  const fieldCol = [fieldTitle, (g) => fmtField(g.first[field]), field === 'metric' ? undefined : 'r'];
  const otherCols = others.map((f) => [f, (g) => (f === 'n' ? fmtInt(g.first.n) : g.first[f]), f === 'n' || f === 'dim' || f === 'k' ? 'r' : undefined]);
  md.push(...table([
    fieldCol,
    ['engine', (g) => g.engine],
    ['backend', (g) => g.backend],
    ['mode', (g) => g.mode],
    ['params', (g) => g.params],
    ...otherCols,
    ...TARGETS.map((t, i) => [`QPS @${fmtTarget(t)}`, (g) => fmtAtRecall(g.targets[i]), 'r']),
    ['build_s', (g) => fmtSeconds(g.build_s), 'r'],
    ...SEARCH_COMPETITORS.map(ratioCol),
  ], groups));
  md.push(RATIO_LEGEND, '');
  const points = groups.flatMap((g) => [...g.records].sort(total(by((r) => r.params?.ef, (r) => r.recall_mean))).map((r) => ({ g, r })));
  md.push('Every point:', '', ...table([
    [fieldTitle, (x) => fmtField(x.r[field]), field === 'metric' ? undefined : 'r'],
    ['engine / mode', (x) => baseLabel(x.g)],
    ['ef', (x) => x.r.params?.ef, 'r'],
    ['recall_mean', (x) => fmtRecall(x.r.recall_mean), 'r'],
    ['QPS', (x) => fmtQps(x.r.qps), 'r'],
    ['build_s', (x) => fmtSeconds(x.r.build_s), 'r'],
  ], points));
  return md;
}

function keyedSweepPlot(groups, records, field, fieldTitle, xScale) {
  const series = seriesList(groups.map((g) => g.first), KNOBS);
  const labels = uniqueLabels(series, [baseLabel, (s) => s.params && `(${s.params})`]);
  const labelOf = new Map(series.map((s, i) => [seriesKey(s), labels[i]]));
  const values = groups.map((g, j) => ({
    series: labelOf.get(seriesKey(g)),
    x: g.first[field],
    qps: g.plotValue.kind === 'none' ? null : g.plotValue.qps,
    bound: g.plotValue.kind === 'lower' ? 'lower bound (≥)' : 'interpolated',
    build_s: g.build_s,
    order: j,
  }));
  const xs = uniq(values.map((v) => v.x));
  const color = { field: 'series', type: 'nominal', title: 'engine / mode', scale: colorScale(labels), sort: labels };
  const x = { field: 'x', type: 'quantitative', title: fieldTitle, scale: xScale, axis: { values: xs } };
  const panel = (y, yTitle, scale, shape) => ({
    width: 360,
    height: 300,
    transform: [{ filter: `isValid(datum.${y})` }],
    encoding: { x, y: { field: y, type: 'quantitative', title: yTitle, scale }, color, order: { field: 'order', type: 'quantitative' } },
    layer: [
      { mark: { type: 'line', strokeWidth: 1.5 } },
      {
        mark: { type: 'point', filled: true, size: 50 },
        encoding: shape ? { shape: { field: 'bound', type: 'nominal', title: 'QPS value', scale: { domain: ['interpolated', 'lower bound (≥)'], range: ['circle', 'triangle-up'] } } } : {},
      },
    ],
  });
  return {
    ...baseSpec(plotTitle(`QPS at recall ${fmtTarget(PLOT_TARGET)} and build time vs ${fieldTitle}`, records), values),
    hconcat: [
      panel('qps', `QPS at recall ${fmtTarget(PLOT_TARGET)} (log scale)`, { type: 'log' }, true),
      panel('build_s', 'build time (s)', { zero: true }, false),
    ],
  };
}

/** The same index searched by both backends: every point, then wasm / native per mode and ef. */
function wasmSection(records) {
  const ok = records.filter((r) => r.sweep === 'wasm' && r.status === 'ok');
  const md = ['### wasm vs native', ''];
  if (!ok.length) return [...md, 'No wasm records.', ''];
  const setCmp = by((r) => r.dataset, (r) => r.n, (r) => rank(METRIC_ORDER, r.metric), (r) => r.metric, (r) => r.k);
  const modeCmp = by((r) => rank(ENGINE_ORDER, r.engine), (r) => r.engine, (r) => rank(MODE_ORDER, r.mode), (r) => r.mode);
  const pairKey = (r) => JSON.stringify([r.engine, r.mode, r.dataset, r.n, r.metric, r.k, paramsText(r.params), clientsOf(r)]);
  const rows = [...ok].sort(total((a, b) => setCmp(a, b) || modeCmp(a, b) || by((r) => paramsText(r.params, KNOBS), (r) => r.params?.ef)(a, b)
    || by((r) => rank(BACKEND_ORDER, r.backend), (r) => r.backend, clientsOf, (r) => r.qps)(a, b)));
  const pairs = groupBy(rows, pairKey, () => 0).map(([, rs]) => ({
    first: rs[0],
    native: rs.find((r) => r.backend === 'native'),
    wasm: rs.find((r) => r.backend === 'wasm'),
  })).filter((p) => p.native && p.wasm);
  for (const p of pairs) {
    p.qpsRatio = speedRatio(p.wasm.qps, p.native.qps);
    p.buildRatio = speedRatio(1 / p.wasm.build_s, 1 / p.native.build_s);
  }
  if (pairs.length) {
    const perMode = groupBy(pairs, (p) => JSON.stringify([p.first.engine, p.first.mode, p.first.dataset, p.first.n, p.first.metric, p.first.k]), (a, b) => setCmp(a.first, b.first) || modeCmp(a.first, b.first));
    md.push('QPS wasm / native per mode (below 1.00× wasm is slower), over the ef values measured on both:', '');
    md.push(...table([
      ['engine', ([, ps]) => ps[0].first.engine],
      ['mode', ([, ps]) => ps[0].first.mode],
      ['data', ([, ps]) => setText(ps[0].first, ['dataset', 'n', 'metric', 'k'])],
      ['points', ([, ps]) => ps.length, 'r'],
      ['median', ([, ps]) => fmtRatio(median(ps.map((p) => p.qpsRatio.value))), 'r'],
      ['min', ([, ps]) => fmtRatio(Math.min(...ps.map((p) => p.qpsRatio.value).filter(isNum))), 'r'],
      ['max', ([, ps]) => fmtRatio(Math.max(...ps.map((p) => p.qpsRatio.value).filter(isNum))), 'r'],
    ], perMode));
    md.push('Per point (build speed = native build_s / wasm build_s, when both backends built):', '');
    md.push(...table([
      ['engine', (p) => p.first.engine],
      ['mode', (p) => p.first.mode],
      ['params', (p) => paramsText(p.first.params)],
      ['native recall', (p) => fmtRecall(p.native.recall_mean), 'r'],
      ['wasm recall', (p) => fmtRecall(p.wasm.recall_mean), 'r'],
      ['native QPS', (p) => fmtQps(p.native.qps), 'r'],
      ['wasm QPS', (p) => fmtQps(p.wasm.qps), 'r'],
      ['QPS wasm / native', (p) => p.qpsRatio.text, 'r'],
      ['build speed wasm / native', (p) => p.buildRatio.text, 'r'],
    ], pairs));
  }
  const unpaired = rows.filter((r) => !pairs.some((p) => p.native === r || p.wasm === r));
  if (unpaired.length) {
    md.push('Without a counterpart on the other backend:', '', ...table([
      ['backend', (r) => r.backend],
      ['engine', (r) => r.engine],
      ['mode', (r) => r.mode],
      ['params', (r) => paramsText(r.params)],
      ['data', (r) => setText(r, ['dataset', 'n', 'metric', 'k'])],
      ['recall_mean', (r) => fmtRecall(r.recall_mean), 'r'],
      ['QPS', (r) => fmtQps(r.qps), 'r'],
      ['build_s', (r) => fmtSeconds(r.build_s), 'r'],
    ], unpaired));
  }
  return md;
}

// --- filtered search --------------------------------------------------------------------------

const FILTER_KIND_ORDER = ['source', 'range', 'all', 'none'];
const FILTER_TARGETS = { recall: 0.95, vsUnfiltered: 0.5, matchAllCost: 0.1, at: 0.1 };
const FILTER_COMPETITOR = 'hnswlib';

/** Filters in selectivity order (no filter last). */
const filterCmp = by((r) => (r.filter_kind === 'none' ? 1 : 0), (r) => r.selectivity, (r) => rank(FILTER_KIND_ORDER, r.filter_kind), (r) => r.filter);
const pctText = (x) => (isNum(x) ? `${fmtSig3(x * 100)} %` : DASH);
const verdict = (ok) => (ok === true ? 'PASS' : ok === false ? 'FAIL' : 'not measured');

/**
 * The point a series is shown at for one filter: horosvec's default ef (none passed); for an ANN
 * competitor the smallest ef whose recall reaches the target (the largest ef if none does); an
 * exact engine's only point.
 */
function headlinePoint(rs) {
  const byEf = [...rs].sort(total(by((r) => r.ef)));
  const def = byEf.find((r) => r.ef_default === true);
  if (def) return { r: def, how: 'default ef' };
  if (byEf.length === 1 && !isNum(byEf[0].ef)) return { r: byEf[0], how: 'exact' };
  const reach = byEf.find((r) => r.recall_mean >= FILTER_TARGETS.recall);
  return reach ? { r: reach, how: `ef=${reach.ef}: smallest reaching ${FILTER_TARGETS.recall}` } : { r: byEf[byEf.length - 1], how: `ef=${byEf[byEf.length - 1].ef}: largest (never reaches ${FILTER_TARGETS.recall})` };
}

/** The table of a sweep's skipped and failed records (none: no lines). */
function notMeasured(records) {
  const notOk = records.filter((r) => r.status !== 'ok');
  if (!notOk.length) return [];
  return ['Not measured in this sweep:', '', ...table([
    ['engine', (r) => r.engine],
    ['backend', (r) => r.backend],
    ['mode', (r) => r.mode],
    ['status', (r) => r.status],
    ['reason', (r) => r.skip_reason],
    ['revision', (r) => revText(r)],
  ], [...notOk].sort(total((a, b) => seriesCmp(seriesOf(a), seriesOf(b)))))];
}

function filteredSection(records, out) {
  const all = records.filter((r) => r.sweep === 'filtered');
  const ok = all.filter((r) => r.status === 'ok');
  const md = ['## Filtered search', ''];
  if (!all.length) return [...md, 'No filtered records.', ''];
  md.push(
    'Search with a metadata filter (`npm run bench -- --sweeps filtered`, bench/lib/filters.mjs). Metadata of each base row: `source`, the prefix of its id in the dataset\'s `texts_base.jsonl.gz`, and `rank`, a seeded uniform integer in 0..99,999 for range filters. Each filter\'s ground truth is a float64 brute force over the rows it matches, computed by the harness; recall@k = |returned ∩ true top-k| / min(k, matches); "short" counts the queries that returned fewer than min(k, matches) hits, "wrong" the hits outside the filter.',
    `Each series is shown at one point per filter: ${SUBJECT} at its default ef (none passed); ${FILTER_COMPETITOR} at the smallest ef whose recall reaches ${FILTER_TARGETS.recall} (the largest ef when none does); exact engines at their only point. "QPS @${FILTER_TARGETS.recall}" interpolates the series' ef points as in the search section ("≥": the smallest ef measured is already above ${FILTER_TARGETS.recall}; the targets take that QPS as the value).`,
    '',
  );
  const sets = groupBy(ok, (r) => JSON.stringify([r.dataset, r.n, r.metric, r.k]), by((r) => r.dataset, (r) => r.n, (r) => r.metric, (r) => r.k));
  for (const [, rs] of sets) md.push(...filteredSet(rs, all, out));
  md.push(...notMeasured(all));
  if (!ok.length) md.push(...filteredTargets([], all, null, out));
  return md;
}

function filteredSet(rs, all, out) {
  const first = rs[0];
  const setName = setText(first, ['dataset', 'n', 'metric', 'k']);
  const md = [`### ${setName}`, ''];
  // the filters, from any series' records (the harness counts the matches itself)
  const filters = groupBy(rs, (r) => r.filter, filterCmp).map(([, xs]) => xs[0]);
  md.push('Filters (matches and selectivity counted by the harness over the base rows used):', '', ...table([
    ['filter', (f) => f.filter],
    ['JSON', (f) => (f.filter_json === null ? '(no filter)' : `\`${f.filter_json}\``)],
    ['matches', (f) => fmtInt(f.matches), 'r'],
    ['selectivity', (f) => pctText(f.selectivity), 'r'],
    ['target', (f) => (isNum(f.selectivity_target) ? pctText(f.selectivity_target) : DASH), 'r'],
  ], filters));
  // per series and filter: the records (one per ef), the headline point, QPS at the target recall
  const cells = seriesList(rs, KNOBS).flatMap((s) => groupBy(s.records, (r) => r.filter, filterCmp).map(([, xs]) => ({
    s,
    filter: xs[0],
    records: xs,
    head: headlinePoint(xs),
    at: qpsAtRecall(xs, FILTER_TARGETS.recall, isExact(xs[0].mode)),
  })));
  const series = seriesList(rs, KNOBS);
  const labels = uniqueLabels(series, [baseLabel, (s) => s.params && `(${s.params})`]);
  const labelOf = new Map(series.map((s, i) => [seriesKey(s), labels[i]]));
  const file = `filtered-${slug(first.dataset)}-n${slug(first.n)}.svg`;
  out.plots.push({ file, spec: filteredPlot(cells, rs, labels, labelOf) });
  md.push(`![filtered search: QPS and recall vs selectivity, ${setName}](${out.link(file)})`, '');
  for (const f of filters) {
    const row = cells.filter((c) => c.filter.filter === f.filter).sort((a, b) => seriesCmp(a.s, b.s));
    md.push(`#### ${f.filter} · ${fmtInt(f.matches)} matches (${pctText(f.selectivity)})`, '', ...table([
      ['engine', (c) => c.s.engine],
      ['backend', (c) => c.s.backend],
      ['mode', (c) => c.s.mode],
      ['point', (c) => c.head.how],
      ['recall@k', (c) => fmtRecall(c.head.r.recall_mean), 'r'],
      ['recall min', (c) => fmtRecall(c.head.r.recall_min), 'r'],
      ['hits mean', (c) => fmtSig3(c.head.r.hits_mean), 'r'],
      ['hits min', (c) => `${text(c.head.r.hits_min)} / ${text(c.head.r.hits_expected)}`, 'r'],
      ['short', (c) => fmtInt(c.head.r.short_queries), 'r'],
      ['wrong', (c) => fmtInt(c.head.r.wrong_hits), 'r'],
      ['errors', (c) => fmtInt(c.head.r.errors), 'r'],
      ['QPS', (c) => fmtQps(c.head.r.qps), 'r'],
      ['p99 ms', (c) => fmtMs(c.head.r.p99_ms), 'r'],
      [`QPS @${FILTER_TARGETS.recall}`, (c) => fmtAtRecall(c.at), 'r'],
      ['strategy', (c) => c.head.r.strategy],
    ], row));
  }
  md.push(...filteredTargets(cells, all, setName, out));
  // every point, folded
  const points = cells.flatMap((c) => [...c.records].sort(total(by((r) => (r.ef_default ? -1 : r.ef)))).map((r) => ({ c, r })))
    .sort((a, b) => filterCmp(a.c.filter, b.c.filter) || seriesCmp(a.c.s, b.c.s));
  md.push('<details><summary>Every point (each filter, series and ef)</summary>', '', ...table([
    ['filter', (x) => x.r.filter],
    ['engine / mode', (x) => baseLabel(x.c.s)],
    ['ef', (x) => (x.r.ef_default ? 'default' : x.r.ef), 'r'],
    ['recall@k', (x) => fmtRecall(x.r.recall_mean), 'r'],
    ['recall min', (x) => fmtRecall(x.r.recall_min), 'r'],
    ['hits mean', (x) => fmtSig3(x.r.hits_mean), 'r'],
    ['hits min', (x) => x.r.hits_min, 'r'],
    ['short', (x) => x.r.short_queries, 'r'],
    ['QPS', (x) => fmtQps(x.r.qps), 'r'],
    ['p99 ms', (x) => fmtMs(x.r.p99_ms), 'r'],
    ['strategy', (x) => (x.r.strategies ? Object.keys(x.r.strategies).sort().map((k) => `${k} ${x.r.strategies[k]}`).join(', ') : null)],
  ], points), '</details>', '');
  return md;
}

/**
 * The issue's four targets for every horosvec series, each PASS or FAIL from the records (never
 * hidden; a series that was not measured is listed as such): recall ≥ 0.95 and min(k, matches)
 * hits for every query at the default ef, every filter; QPS ≥ hnswlib's at equal recall (0.95,
 * interpolated) every filter; at 10 % selectivity ≥ 0.5× the unfiltered QPS; a match-all filter
 * costs ≤ 10 % over no filter (unfiltered QPS / match-all QPS − 1).
 */
function filteredTargets(cells, all, setName, out) {
  const subjects = [...new Map(cells.filter((c) => c.s.engine === SUBJECT).map((c) => [seriesKey(c.s), c.s])).values()].sort(seriesCmp);
  const rows = [];
  const detail = [];
  for (const s of subjects) {
    const mine = cells.filter((c) => seriesKey(c.s) === seriesKey(s));
    const filtered = mine.filter((c) => c.filter.filter_kind !== 'none');
    const at = (pred) => mine.find((c) => pred(c.filter));
    // 1. recall and hits at the default ef, every filter
    const t1 = filtered.map((c) => {
      const r = c.head.r;
      const pass = c.head.how === 'default ef' && r.recall_mean >= FILTER_TARGETS.recall && r.short_queries === 0 && r.wrong_hits === 0;
      return { c, pass, value: `recall ${fmtRecall(r.recall_mean)}, ${fmtInt(r.short_queries)} short, ${fmtInt(r.wrong_hits)} wrong` };
    });
    // 2. QPS at recall 0.95 against hnswlib's, every filter
    const t2 = filtered.map((c) => {
      const comp = cells.find((x) => x.s.engine === FILTER_COMPETITOR && x.filter.filter === c.filter.filter && !isExact(x.s.mode));
      if (!comp) return { c, pass: null, value: `no ${FILTER_COMPETITOR} record` };
      const ratio = filteredRatio(c.at, comp.at);
      compared(out, ratio, { section: 'filtered', setting: `${setName} · ${c.filter.filter}`, subject: fullLabel(s), competitor: fullLabel(comp.s), what: `QPS at recall ${FILTER_TARGETS.recall} (${fmtAtRecall(c.at)} vs ${fmtAtRecall(comp.at)})` });
      return { c, pass: ratio.value === null ? null : !ratio.loss, value: `${fmtAtRecall(c.at)} vs ${fmtAtRecall(comp.at)} = ${ratio.text}` };
    });
    for (const x of t1) detail.push({ s, filter: x.c.filter, target: 1, ...x });
    for (const x of t2) detail.push({ s, filter: x.c.filter, target: 2, ...x });
    const none = at((f) => f.filter_kind === 'none');
    const ten = at((f) => f.selectivity_target === FILTER_TARGETS.at);
    const everything = at((f) => f.filter_kind === 'all');
    const fails = (xs) => xs.filter((x) => x.pass === false);
    const summary = (xs) => (xs.length === 0 ? null : xs.some((x) => x.pass === false) ? false : xs.every((x) => x.pass === true) ? true : null);
    rows.push({ s, target: `recall@k ≥ ${FILTER_TARGETS.recall} and min(k, matches) hits for every query, default ef, every filter`, value: `${t1.length - fails(t1).length} of ${t1.length} filters pass${fails(t1).length ? `; fail: ${fails(t1).map((x) => `${x.c.filter.filter} (${x.value})`).join('; ')}` : ''}`, pass: summary(t1) });
    rows.push({ s, target: `QPS ≥ ${FILTER_COMPETITOR} filtered at recall ${FILTER_TARGETS.recall}, every filter`, value: `${t2.filter((x) => x.pass === true).length} of ${t2.length} filters pass${fails(t2).length ? `; fail: ${fails(t2).map((x) => `${x.c.filter.filter} (${x.value})`).join('; ')}` : ''}`, pass: summary(t2) });
    if (ten && none) {
      const ratio = ten.head.r.qps / none.head.r.qps;
      rows.push({ s, target: `QPS at ${pctText(FILTER_TARGETS.at)} selectivity ≥ ${FILTER_TARGETS.vsUnfiltered}× unfiltered (default ef)`, value: `${ten.filter.filter}: ${fmtQps(ten.head.r.qps)} / ${fmtQps(none.head.r.qps)} = ${fmtRatio(ratio)}`, pass: ratio >= FILTER_TARGETS.vsUnfiltered });
    } else rows.push({ s, target: `QPS at ${pctText(FILTER_TARGETS.at)} selectivity ≥ ${FILTER_TARGETS.vsUnfiltered}× unfiltered`, value: 'no record', pass: null });
    if (everything && none) {
      const cost = none.head.r.qps / everything.head.r.qps - 1;
      rows.push({ s, target: `a match-all filter costs ≤ ${FILTER_TARGETS.matchAllCost * 100} % over no filter (default ef)`, value: `${fmtQps(none.head.r.qps)} / ${fmtQps(everything.head.r.qps)} − 1 = ${fmtSig3(cost * 100)} %`, pass: cost <= FILTER_TARGETS.matchAllCost });
    } else rows.push({ s, target: `a match-all filter costs ≤ ${FILTER_TARGETS.matchAllCost * 100} % over no filter`, value: 'no record', pass: null });
  }
  // horosvec series that have no ok record here: the targets are not measured
  const missing = all.filter((r) => r.engine === SUBJECT && r.status !== 'ok' && !subjects.some((s) => seriesKey(s) === seriesKey(seriesOf(r, KNOBS))));
  for (const r of missing) rows.push({ s: seriesOf(r, KNOBS), target: 'all four targets', value: `${r.status}: ${r.skip_reason}`, pass: null });
  if (!rows.length) return [];
  const md = [`Targets (issue 14), computed from the records${setName ? ` (${setName})` : ''}; every ${SUBJECT} series, pass or fail:`, '', ...table([
    ['series', (x) => fullLabel(x.s)],
    ['target', (x) => x.target],
    ['measured', (x) => x.value],
    ['verdict', (x) => verdict(x.pass)],
  ], rows)];
  if (detail.length) {
    md.push('<details><summary>Targets 1 and 2 per filter</summary>', '', ...table([
      ['filter', (x) => x.filter.filter],
      ['selectivity', (x) => pctText(x.filter.selectivity), 'r'],
      ['series', (x) => fullLabel(x.s)],
      ['target', (x) => (x.target === 1 ? `recall ≥ ${FILTER_TARGETS.recall}, full hits` : `QPS ≥ ${FILTER_COMPETITOR} @${FILTER_TARGETS.recall}`)],
      ['measured', (x) => x.value],
      ['verdict', (x) => verdict(x.pass)],
    ], [...detail].sort((a, b) => a.target - b.target || filterCmp(a.filter, b.filter) || seriesCmp(a.s, b.s))), '</details>', '');
  }
  return md;
}

/**
 * horosvec / competitor QPS at the target recall for the filtered targets: "not reached" on our
 * side is a loss, on the competitor's a win (∞); a lower bound (≥: the smallest ef measured
 * already exceeds the recall; ef 16, where the sweep starts, is close to the floor k = 10 of both
 * engines) is taken as the series' QPS at the target, so every pair of measured values gives a
 * ratio (conservative for a horosvec series measured from its default ef only: segmented, wasm).
 */
function filteredRatio(h, c) {
  if (h.kind === 'none') return c.kind === 'none' ? { text: 'neither reaches it', value: 0, loss: true } : { text: 'not reached', value: 0, loss: true };
  if (c.kind === 'none') return { text: '∞', value: Infinity, loss: false };
  const value = h.qps / c.qps;
  const note = h.kind === 'lower' || c.kind === 'lower' ? ` (${[h.kind === 'lower' && SUBJECT, c.kind === 'lower' && FILTER_COMPETITOR].filter(Boolean).join(' and ')} at the smallest ef measured, already above the recall)` : '';
  return { text: `${fmtRatio(value)}${note}`, value, loss: value < 1 };
}

/** QPS at the target recall (left) and recall at the headline point (right) against selectivity, one line per series. */
function filteredPlot(cells, records, labels, labelOf) {
  const values = cells.filter((c) => c.filter.filter_kind !== 'none').map((c) => ({
    series: labelOf.get(seriesKey(c.s)),
    selectivity: c.filter.selectivity,
    filter: c.filter.filter,
    kind: c.filter.filter_kind === 'source' ? 'source = …' : c.filter.filter_kind === 'range' ? 'rank range' : 'match-all',
    qps: c.at.kind === 'none' ? null : c.at.qps,
    recall: c.head.r.recall_mean,
    bound: c.at.kind === 'lower' ? 'lower bound (≥)' : 'interpolated or exact',
  })).sort(total(by((v) => v.series, (v) => v.selectivity)));
  const color = { field: 'series', type: 'nominal', title: 'engine / mode', scale: colorScale(labels), sort: labels };
  const x = { field: 'selectivity', type: 'quantitative', title: 'selectivity (fraction of rows matching, log scale)', scale: { type: 'log', nice: false, padding: 12 } };
  const panel = (y, yTitle, scale, shapeField, shapeTitle, domain) => ({
    width: 380,
    height: 300,
    transform: [{ filter: `isValid(datum.${y})` }],
    encoding: { x, y: { field: y, type: 'quantitative', title: yTitle, scale }, color, order: { field: 'selectivity', type: 'quantitative' } },
    layer: [
      { mark: { type: 'line', strokeWidth: 1.5 } },
      { mark: { type: 'point', filled: true, size: 55 }, encoding: { shape: { field: shapeField, type: 'nominal', title: shapeTitle, scale: { domain, range: ['circle', 'triangle-up', 'square'] } }, tooltip: [{ field: 'filter' }] } },
    ],
  });
  return {
    ...baseSpec(plotTitle(`Filtered search: QPS at recall ${FILTER_TARGETS.recall} and recall@k vs selectivity (1 client)`, records), values),
    resolve: { scale: { shape: 'independent' }, legend: { shape: 'independent' } },
    hconcat: [
      panel('qps', `QPS at recall ${FILTER_TARGETS.recall} (log scale)`, { type: 'log' }, 'bound', 'QPS value', ['interpolated or exact', 'lower bound (≥)']),
      panel('recall', `recall@k (${SUBJECT}: default ef; ${FILTER_COMPETITOR}: smallest ef reaching ${FILTER_TARGETS.recall})`, { zero: false }, 'kind', 'filter', ['source = …', 'rank range', 'match-all']),
    ],
  };
}

// --- browser sweep ----------------------------------------------------------------------------

// issue 17's targets: horosvec's QPS at recall 0.95 at least this many times the best of the
// other browser engines, and a memory per vector for every engine
const BROWSER_TARGET = { recall: 0.95, ratio: 4 };
// the search-width knob of each browser record (`knob`: ef, EdgeVec's rescore_factor; null: one point)
const BROWSER_KNOBS = ['ef', 'rescore_factor'];
const knobOf = (r) => (r.knob ? r.params?.[r.knob] : null);

/**
 * QPS at recall `target` of a browser series: the curve's interpolation; a one-point series (no
 * knob: voy's tree, orama's scan) has its QPS wherever its recall reaches the target.
 */
function browserAt(rs, target, field = 'qps') {
  const pts = rs.filter((r) => isNum(r[field])).map((r) => ({ recall_mean: r.recall_mean, qps: r[field] }));
  if (rs.length === 1 && !rs[0].knob) return pts.length && pts[0].recall_mean >= target ? { kind: 'exact', qps: pts[0].qps } : { kind: 'none' };
  return qpsAtRecall(pts, target, false);
}

function browserSection(records, out) {
  const all = records.filter((r) => r.sweep === 'browser');
  const ok = all.filter((r) => r.status === 'ok');
  const md = ['## Browser (headless Chromium)', ''];
  if (!all.length) return [...md, 'No browser records.', ''];
  md.push(
    "The engines a page would use instead of horosvec, each in a fresh headless Chromium (`npm run bench -- --sweeps browser`, bench/browser/): horosvec's package browser entry (its wasm build), hnswlib-wasm, EdgeVec, voy and Orama, loaded as a bundle resolves them, the index built in the page from the dataset's base prefix, one query after another on the page's thread (the matrix's timing loop, bench/lib/timing.mjs). Recall@k is computed by the harness against the exact ground truth of the prefix (float64 brute force).",
    `Memory per vector, after the build and two gc() calls: the byte length of the page's WebAssembly memories (the engine's whole wasm heap: its initial size and the build's peak included) plus the JS memory the build added (performance.measureUserAgentSpecificMemory(), the page being cross-origin isolated by COOP/COEP headers; it counts no wasm memory); "own" is the engine's own accounting where it has one (horosvec stats(), EdgeVec memoryUsage()). EdgeVec is built with l2 on the unit vectors (its cosine and dot modes returned the farthest vectors in issue 17's Node try); its ef_search is set to 10 (k) when the index is made, so that its \`hnsw\` walk's list is the ef asked (\`search(q, max(k, ef))\`, cut to k); its \`hnsw-bq-rescore\` knob is the rescore factor. voy takes its rows through \`add\` in chunks.`,
    '',
  );
  const sets = groupBy(ok, (r) => JSON.stringify([r.dataset, r.n, r.metric, r.k, r.browser]), by((r) => r.dataset, (r) => r.n, (r) => r.metric, (r) => r.k, (r) => r.browser));
  for (const [, rs] of sets) md.push(...browserSet(rs, out));
  return [...md, ...notMeasured(all)];
}

/** One browser set: same dataset, n, metric, k and browser. */
function browserSet(records, out) {
  const first = records[0];
  const setName = `${setText(first, ['dataset', 'n', 'metric', 'k'])} · ${text(first.browser)}`;
  const series = seriesList(records, BROWSER_KNOBS);
  for (const s of series) {
    s.records.sort(total(by(knobOf, (r) => r.recall_mean)));
    s.targets = TARGETS.map((t) => browserAt(s.records, t));
    // per CPU second of the browser's processes: less sensitive to other jobs on the machine
    s.cpuAt = browserAt(s.records, BROWSER_TARGET.recall, 'qps_per_cpu_s');
  }
  const med = (s, f) => median(s.records.map((r) => r[f]));
  const subjects = series.filter((s) => s.engine === SUBJECT);
  const others = series.filter((s) => s.engine !== SUBJECT);
  const ratioCell = (s) => {
    if (s.engine === SUBJECT) return '';
    return subjects.map((h) => TARGETS.map((t, i) => {
      const r = targetRatio(h.targets[i], s.targets[i]);
      compared(out, r, { section: 'browser', setting: setName, subject: fullLabel(h), competitor: fullLabel(s), what: `QPS at recall ${fmtTarget(t)}` });
      return r.text;
    }).join(' / ')).join('<br>');
  };
  const labels = uniqueLabels(series, [baseLabel, (s) => s.params && `(${s.params})`]);
  // two plots: QPS, and QPS per CPU second of the browser's processes (steadier on a busy machine)
  const plot = (field, what, suffix) => {
    const file = `browser-${slug(first.dataset)}-n${slug(first.n)}-k${slug(first.k)}${suffix}.svg`;
    out.plots.push({
      file,
      spec: lineSpec({
        title: plotTitle(`Recall vs ${what} in ${text(first.browser)} (headless, 1 thread)`, records),
        values: series.flatMap((s, i) => s.records.filter((r) => isNum(r[field]) && r[field] > 0).map((r, j) => ({ series: labels[i], recall: r.recall_mean, qps: r[field], order: j }))),
        labels,
        x: { field: 'recall', type: 'quantitative', title: 'recall@k (mean)', scale: { zero: false, padding: 10 } },
        y: { field: 'qps', type: 'quantitative', title: `${what} (log scale)`, scale: { type: 'log' } },
      }),
    });
    return `![recall vs ${what} in the browser, ${first.dataset} n=${first.n}](${out.link(file)})`;
  };
  const plots = [plot('qps', 'QPS', ''), plot('qps_per_cpu_s', 'QPS per CPU second', '-cpu')];
  const loads = records.map((r) => r.load_avg_1m).filter(isNum);
  const md = [`### ${setName}`, '', ...plots.flatMap((p) => [p, ''])];
  if (loads.length) md.push(`Load average (1 min) at the timing steps: ${fmtSig3(Math.min(...loads))}–${fmtSig3(Math.max(...loads))} on ${text(first.machine?.cores)} cores (above the core count, other jobs shared the machine: QPS is then lower and noisier, QPS per CPU second much less so).`, '');
  md.push(...table([
    ['engine', (s) => s.engine],
    ['mode', (s) => s.mode],
    ['version', (s) => uniq(s.records.map((r) => r.engine_version)).join(', ')],
    ['build s', (s) => fmtSeconds(med(s, 'build_s')), 'r'],
    ['load s', (s) => fmtSeconds(med(s, 'load_s')), 'r'],
    ...TARGETS.map((t, i) => [`QPS @${fmtTarget(t)}`, (s) => fmtAtRecall(s.targets[i]), 'r']),
    [`${SUBJECT} / this (${TARGETS.map(fmtTarget).join(' / ')})`, ratioCell, 'r'],
    [`QPS per CPU s @${BROWSER_TARGET.recall}`, (s) => fmtAtRecall(s.cpuAt), 'r'],
    ['bytes/vector', (s) => fmtBytes(med(s, 'bytes_per_vector')), 'r'],
    ['wasm', (s) => fmtBytes(med(s, 'wasm_bytes_per_vector')), 'r'],
    ['JS', (s) => fmtBytes(med(s, 'js_bytes_per_vector')), 'r'],
    ['own', (s) => fmtBytes(med(s, 'engine_bytes_per_vector')), 'r'],
  ], series));
  md.push(`${RATIO_LEGEND} "load s": horosvec's Collection.fromBytes of its own snapshot (what a page that ships the index does instead of building it). Bytes per vector: wasm + JS, the wasm heap, the JS the build added, the engine's own accounting. "QPS per CPU s": the calls of a timing step (warm-up included) per CPU second of the browser's processes, from /proc (less sensitive to other jobs on the machine than QPS; the targets below give both).`, '');
  // the targets: on QPS, and on QPS per CPU second
  const rows = [];
  for (const [what, at] of [['QPS', (s) => s.targets[TARGETS.indexOf(BROWSER_TARGET.recall)]], ['QPS per CPU second', (s) => s.cpuAt]]) {
    const best = others.map((s) => ({ s, v: at(s) })).filter((x) => x.v.kind !== 'none').sort((a, b) => b.v.qps - a.v.qps)[0];
    for (const h of subjects) {
      const hv = at(h);
      const r = best ? targetRatio(hv, best.v) : { text: '∞', value: null };
      const pass = best ? (isNum(r.value) ? r.value >= BROWSER_TARGET.ratio : null) : hv.kind !== 'none';
      rows.push({ what: `${fullLabel(h)}: ${what} at recall ${BROWSER_TARGET.recall} ≥ ${BROWSER_TARGET.ratio}× the best other engine (${best ? `${fullLabel(best.s)}, ${fmtAtRecall(best.v)}` : 'none reaches it'})`, value: `${fmtAtRecall(hv)} → ${r.text}`, verdict: verdict(pass) });
    }
  }
  const noMem = series.filter((s) => !isNum(med(s, 'bytes_per_vector')));
  rows.push({ what: 'memory per vector reported for every engine', value: noMem.length ? `missing: ${noMem.map(fullLabel).join(', ')}` : `${series.length} of ${series.length}`, verdict: verdict(noMem.length === 0) });
  md.push('Issue 17\'s targets (a "≥" QPS, whose lowest point is already above the recall, is taken as its value, as in the filtered targets):', '', ...table([['target', (x) => x.what], ['measured', (x) => x.value, 'r'], ['', (x) => x.verdict]], rows));
  for (const s of series) {
    const rs = s.records;
    const meta = [
      `version ${uniq(rs.map((r) => r.engine_version)).join(', ') || DASH}`,
      `api ${uniq(rs.map((r) => r.api)).join(', ') || DASH}`,
      `kernel ${uniq(rs.map((r) => r.kernel)).join(', ') || DASH}`,
      `threads ${uniq(rs.map((r) => r.threads)).join(', ') || DASH}`,
      `built with ${uniq(rs.map((r) => r.engine_metric)).join(', ') || DASH}`,
      `${uniq(rs.map((r) => (r.cross_origin_isolated ? 'cross-origin isolated' : 'not cross-origin isolated'))).join(', ')}`,
    ];
    md.push(`#### ${fullLabel(s)}`, '', meta.join(' · '), '', ...table([
      [uniq(rs.map((r) => r.knob ?? DASH)).join(', '), (r) => knobOf(r), 'r'],
      ['recall_mean', (r) => fmtRecall(r.recall_mean), 'r'],
      ['recall_min', (r) => fmtRecall(r.recall_min), 'r'],
      ['QPS', (r) => fmtQps(r.qps), 'r'],
      ['p50 ms', (r) => fmtMs(r.p50_ms), 'r'],
      ['p99 ms', (r) => fmtMs(r.p99_ms), 'r'],
    ], rs));
  }
  return md;
}

// --- skipped and losses -----------------------------------------------------------------------

function skippedSection(records) {
  const skipped = records.filter((r) => r.status !== 'ok');
  const md = ['## Skipped and failed', ''];
  if (!skipped.length) return [...md, 'Nothing was skipped and no job failed.', ''];
  const key = (r) => JSON.stringify([r.engine, r.backend ?? null, r.mode ?? null, r.sweep, r.status, r.skip_reason]);
  const rows = groupBy(skipped, key, by((r) => rank(ENGINE_ORDER, r.engine), (r) => r.engine, (r) => r.backend,
    (r) => rank(MODE_ORDER, r.mode), (r) => r.mode, (r) => rank(SWEEPS, r.sweep), (r) => r.status, (r) => r.skip_reason))
    .map(([, rs]) => ({ ...rs[0], count: rs.length }));
  return [...md, ...table([
    ['engine', (r) => r.engine],
    ['backend', (r) => r.backend],
    ['mode', (r) => r.mode],
    ['sweep', (r) => r.sweep],
    ['status', (r) => r.status],
    ['reason', (r) => r.skip_reason],
    ['records', (r) => r.count, 'r'],
  ], rows)];
}
/** Records one horosvec-vs-competitor comparison; the losing ones are listed at the end. */
function compared(out, ratio, loss) {
  out.compared[loss.section] = (out.compared[loss.section] ?? 0) + 1;
  if (ratio.loss) out.losses.push({ ...loss, ratio: ratio.text });
}

function lossesSection(losses, compared) {
  const md = ['## Where horosvec loses', ''];
  const sections = LOSS_SECTIONS;
  const counts = sections.map((s) => `${s} ${fmtInt(losses.filter((l) => l.section === s).length)} of ${fmtInt(compared[s] ?? 0)}`).join(', ');
  md.push(`Comparisons in which a ${SUBJECT} mode is slower than a competitor: ${counts}.`, '');
  if (!losses.length) return md;
  // the sections' own order (their tables are sorted), sweep by sweep
  const rows = losses.map((l, i) => ({ ...l, i })).sort(by((l) => rank(sections, l.section), (l) => l.i));
  return [
    ...md,
    `Every comparison above in which a ${SUBJECT} mode is slower than a competitor (ratio below 1.00× before rounding, "≤"/"≥" when one side is a bound, or the target recall not reached).`,
    '',
    ...table([
      ['sweep', (l) => l.section],
      ['setting', (l) => l.setting],
      [SUBJECT, (l) => l.subject],
      ['competitor', (l) => l.competitor],
      ['what', (l) => l.what],
      ['ratio', (l) => l.ratio, 'r'],
    ], rows),
  ];
}

// ---------------------------------------------------------------------------------------------
// Rendering and main

async function renderPlots(plots, dir) {
  mkdirSync(dir, { recursive: true });
  for (const { file, spec } of [...plots].sort((a, b) => cmpStr(a.file, b.file))) {
    const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
    const svg = await view.toSVG();
    view.finalize();
    writeFileSync(join(dir, file), `${svg}\n`);
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { records, stale } = loadRecords(opts.in);
  const plotLink = relative(dirname(opts.out), opts.plots).split(sep).join('/');
  const out = { plots: [], losses: [], compared: {}, link: (file) => (plotLink ? `${plotLink}/${file}` : file) };
  const md = [
    ...headerSection(opts),
    ...contextSection(records, stale),
    ...searchSection(records, out),
    ...concurrencySection(records, out),
    ...buildSection(records, out),
    ...writesSection(records, out),
    ...openSection(records, out),
    ...filteredSection(records, out),
    ...browserSection(records, out),
    '## Dimension, size and metric sweeps; wasm vs native',
    '',
    ...keyedSweepSection({ sweep: 'dims', title: 'Dimension', field: 'dim', fieldTitle: 'dim', fmtField: text, plotFile: 'dims.svg', xScale: { type: 'log', base: 2, nice: false, padding: 16 } }, records, out),
    ...keyedSweepSection({ sweep: 'sizes', title: 'Size', field: 'n', fieldTitle: 'n', fmtField: fmtInt, plotFile: 'sizes.svg', xScale: { type: 'log', nice: false, padding: 16 } }, records, out),
    ...keyedSweepSection({ sweep: 'metrics', title: 'Metric', field: 'metric', fieldTitle: 'metric', fmtField: text }, records, out),
    ...wasmSection(records),
    ...skippedSection(records),
    ...lossesSection(out.losses, out.compared),
  ];
  const names = out.plots.map((p) => p.file);
  const dup = names.find((f, i) => names.indexOf(f) !== i);
  if (dup) fail(`two plots would be written to ${dup}`);
  await renderPlots(out.plots, opts.plots);
  mkdirSync(dirname(opts.out), { recursive: true });
  writeFileSync(opts.out, `${md.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`);
  process.stdout.write(`wrote ${relative(ROOT, opts.out) || opts.out} and ${out.plots.length} plot(s) in ${relative(ROOT, opts.plots) || opts.plots}\n`);
}

await main();
