// The benchmark matrix's smoke run: `npm run bench -- --quick` on a tiny prefix of the shipped
// sample, every sweep and engine, into a temporary results folder (<sweep>/<rev>.jsonl); then
// `npm run bench:report` over its records. Checks that every sweep produced well-formed records and
// that no engine was dropped silently (each is measured or skipped with a reason). Never checks
// speed. Then bench/compare.mjs over the committed records (bench-results/), and the one timing
// loop (bench/lib/protocol.mjs) that the matrix and bench/ef-sweep.mjs share.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SWEEPS = ['search', 'concurrency', 'build', 'writes', 'open', 'dims', 'sizes', 'metrics', 'wasm', 'filtered', 'browser'];
const ENGINES = ['horosvec', 'hnswlib', 'usearch', 'sqlite-vec', 'orama'];
const COMMON = ['sweep', 'status', 'engine', 'engine_version', 'backend', 'mode', 'dataset', 'git_rev', 'date', 'machine', 'node', 'command'];
const MEASURED = ['api', 'kernel', 'rss_mb', 'storage', 'storage_detail', 'n', 'dim', 'metric', 'k', 'concurrency', 'concurrency_model', 'threads', 'params'];
const SEARCH = ['build_s', 'insert_qps', 'recall_mean', 'recall_min', 'qps', 'p50_ms', 'p99_ms', 'bytes_per_vector', 'rss_mb'];
const BROWSER = ['build_s', 'insert_qps', 'recall_mean', 'recall_min', 'qps', 'p50_ms', 'p99_ms', 'bytes_per_vector', 'wasm_bytes_per_vector', 'js_bytes_per_vector', 'memory_method', 'browser', 'browser_executable', 'cross_origin_isolated', 'engine_metric', 'knob', 'cpu_s', 'qps_per_cpu_s', 'load_avg_1m'];
const FILTERED = ['filter', 'filter_kind', 'filter_json', 'matches', 'selectivity', 'selectivity_target', 'strategy', 'strategies', 'ef', 'ef_default', 'recall_mean', 'recall_min', 'hits_mean', 'hits_min', 'hits_expected', 'short_queries', 'wrong_hits', 'errors', 'qps', 'p50_ms', 'p99_ms', 'build_s'];

type Rec = Record<string, unknown> & { sweep: string; status: string; engine: string };

let dir: string;
let run: ReturnType<typeof spawnSync>;
const records: Rec[] = [];

// the file name of this run's records: HEAD's short hash, -dirty when the measured paths differ
const git = (args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
const rev = () => `${git(['rev-parse', '--short', 'HEAD'])}${git(['status', '--porcelain', '--', 'core', 'bindings-node', 'bindings-wasm', 'npm', 'bench']) ? '-dirty' : ''}`;
const sweepFile = (s: string) => join(dir, 'results', s, `${rev()}.jsonl`);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hv-bench-quick-'));
  run = spawnSync('npm', ['run', 'bench', '--', '--quick', '--out', join(dir, 'results'), '--disk-dir', join(ROOT, 'target', 'bench-tmp')], { cwd: ROOT, encoding: 'utf8' });
  if (existsSync(join(dir, 'results'))) {
    for (const s of readdirSync(join(dir, 'results'))) {
      for (const f of readdirSync(join(dir, 'results', s))) {
        for (const line of readFileSync(join(dir, 'results', s, f), 'utf8').split('\n')) if (line.trim()) records.push(JSON.parse(line) as Rec);
      }
    }
  }
}, 340_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run bench -- --quick', () => {
  it('finishes without a failed job', () => {
    expect(run.status, String(run.stderr).slice(-3000)).toBe(0);
    expect(records.filter((r) => r.status === 'failed')).toEqual([]);
  });

  it('writes every sweep, each with measured records in its own file', () => {
    for (const s of SWEEPS) {
      const rs = records.filter((r) => r.sweep === s);
      expect(rs.filter((r) => r.status === 'ok').length, s).toBeGreaterThan(0);
      expect(existsSync(sweepFile(s)), sweepFile(s)).toBe(true);
    }
  });

  it('gives every record the protocol fields; a skipped one says why', () => {
    for (const r of records) {
      for (const f of COMMON) expect(r, `${r.sweep} ${r.engine}: ${f}`).toHaveProperty(f);
      expect(['ok', 'skipped']).toContain(r.status);
      if (r.status === 'skipped') {
        expect(typeof r.skip_reason).toBe('string');
        expect((r.skip_reason as string).length).toBeGreaterThan(5);
        continue;
      }
      for (const f of MEASURED) expect(r, `${r.sweep} ${r.engine} ${r.mode}: ${f}`).toHaveProperty(f);
      expect(['memory', 'tmpfs', 'ssd', 'rotational', 'unknown']).toContain(r.storage);
      expect(String(r.mode)).not.toBe('');
      if (['search', 'concurrency', 'dims', 'sizes', 'metrics'].includes(r.sweep)) {
        for (const f of SEARCH) expect(r, `${r.sweep} ${r.engine} ${r.mode}: ${f}`).toHaveProperty(f);
        expect(r.recall_mean as number).toBeGreaterThanOrEqual(0);
        expect(r.recall_mean as number).toBeLessThanOrEqual(1);
        expect(r.qps as number).toBeGreaterThan(0);
      }
    }
  });

  it('measures or skips, with a reason, every engine and every horosvec mode', () => {
    for (const e of ENGINES) expect(records.some((r) => r.sweep === 'search' && r.engine === e), e).toBe(true);
    const modes = new Set(records.filter((r) => r.sweep === 'search' && r.engine === 'horosvec' && r.status === 'ok').map((r) => `${r.backend} ${r.mode}`));
    for (const m of ['native exact', 'native vamana-rabitq1', 'native vamana-rabitq4', 'native segmented-vamana-rabitq1', 'wasm vamana-rabitq1']) expect(modes, m).toContain(m);
    // the exact engines are the recall control
    for (const r of records.filter((x) => x.status === 'ok' && x.sweep === 'search' && ['exact', 'vec0-scan', 'brute-force'].includes(x.mode as string))) {
      expect(r.recall_mean as number, `${r.engine} ${r.mode}`).toBeGreaterThanOrEqual(0.99);
    }
  });

  it('measures the engines issue 18 added (zvec, LanceDB, EdgeVec and voy under Node) or records why not (faiss-node, hnswlib-wasm under Node)', () => {
    const rs = records.filter((r) => r.sweep === 'search');
    const ok = rs.filter((r) => r.status === 'ok');
    const modes = new Set(ok.map((r) => `${r.engine} ${r.backend} ${r.mode}`));
    for (const m of ['zvec native hnsw', 'zvec native hnsw-int8-refine', 'zvec native hnsw-rabitq', 'lancedb native ivf-pq', 'lancedb native ivf-rq', 'edgevec wasm hnsw', 'edgevec wasm hnsw-bq-rescore', 'voy wasm kd-tree']) {
      expect(modes, `${m}: ${JSON.stringify(rs.filter((r) => r.status !== 'ok').map((r) => [r.engine, r.mode, r.skip_reason]))}`).toContain(m);
    }
    type P = Record<string, unknown>;
    for (const r of ok.filter((x) => ['zvec', 'lancedb'].includes(x.engine))) {
      // on disk, with the build parameters in the record
      expect(r.storage, `${r.engine} ${r.mode}`).not.toBe('memory');
      expect(r.bytes_per_vector as number).toBeGreaterThan(0);
      const p = r.params as P;
      if (r.engine === 'zvec') expect([p.m, p.efConstruction, typeof p.ef]).toEqual([50, 500, 'number']);
      else expect(typeof p.numPartitions === 'number' && typeof p.nprobes === 'number' && 'refine_factor' in p, JSON.stringify(p)).toBe(true);
    }
    // recall floors on the sample's 2,000 rows
    const best = (e: string, mode: string) => Math.max(...ok.filter((r) => r.engine === e && r.mode === mode).map((r) => r.recall_mean as number));
    for (const [e, mode] of [['zvec', 'hnsw'], ['zvec', 'hnsw-int8-refine'], ['zvec', 'hnsw-rabitq'], ['lancedb', 'ivf-pq'], ['lancedb', 'ivf-rq'], ['edgevec', 'hnsw']]) expect(best(e, mode), `${e} ${mode}`).toBeGreaterThanOrEqual(0.9);
    // zvec and LanceDB search by a Promise: their clients share one process
    for (const e of ['zvec', 'lancedb']) expect(records.some((r) => r.sweep === 'concurrency' && r.engine === e && r.status === 'ok' && r.concurrency_model === 'async'), e).toBe(true);
    // what cannot run here says why
    const faiss = rs.filter((r) => r.engine === 'faiss');
    expect(faiss.length).toBeGreaterThan(0);
    for (const r of faiss) expect([r.status, String(r.skip_reason)]).toEqual(['skipped', expect.stringMatching(/GitHub/)]);
    const hw = rs.find((r) => r.engine === 'hnswlib-wasm' && r.backend === 'wasm');
    expect([hw?.status, String(hw?.skip_reason)]).toEqual(['skipped', expect.stringMatching(/web only/)]);
  });

  it('measures every filter of the filtered sweep on each engine with a filter, or says why not', () => {
    const rs = records.filter((r) => r.sweep === 'filtered');
    for (const e of ENGINES) expect(rs.some((r) => r.engine === e), e).toBe(true);
    const ok = rs.filter((r) => r.status === 'ok');
    // the competitors with a filter always measure; horosvec measures once its search filters
    for (const e of ['hnswlib', 'sqlite-vec', 'orama']) expect(ok.some((r) => r.engine === e), e).toBe(true);
    expect(rs.find((r) => r.engine === 'usearch')?.status).toBe('skipped');
    const filters = new Set(ok.map((r) => r.filter));
    for (const f of ['none', 'match-all', 'source=jargon', 'rank 0.1 %', 'rank 50 %']) expect(filters, f).toContain(f);
    for (const r of ok) {
      for (const f of FILTERED) expect(r, `${r.engine} ${r.mode} ${r.filter}: ${f}`).toHaveProperty(f);
      expect(r.selectivity as number).toBeGreaterThan(0);
      expect(r.selectivity as number).toBeLessThanOrEqual(1);
      expect(r.hits_min as number).toBeLessThanOrEqual(r.hits_mean as number);
      expect(r.hits_expected).toBe(Math.min(r.k as number, r.matches as number));
    }
    // the exact engines are the control: every query gets exactly min(k, matches) true hits
    for (const r of ok.filter((x) => ['vec0-scan', 'brute-force'].includes(x.mode as string))) {
      expect(r.recall_mean, `${r.engine} ${r.filter}`).toBe(1);
      expect(r.short_queries, `${r.engine} ${r.filter}`).toBe(0);
      expect(r.wrong_hits, `${r.engine} ${r.filter}`).toBe(0);
    }
  });

  it('measures every browser engine in headless Chromium: the browser, the code path, recall, QPS and memory per vector', () => {
    const rs = records.filter((r) => r.sweep === 'browser');
    const ok = rs.filter((r) => r.status === 'ok');
    // every engine measured (none skipped here: Chromium and the packages are installed by setup)
    const modes = new Set(ok.map((r) => `${r.engine} ${r.backend} ${r.mode}`));
    for (const m of ['horosvec wasm vamana-rabitq1', 'hnswlib-wasm wasm hnsw', 'edgevec wasm hnsw', 'edgevec wasm hnsw-bq-rescore', 'voy wasm kd-tree', 'orama js brute-force']) expect(modes, `${m}: ${JSON.stringify(rs.filter((r) => r.status !== 'ok'))}`).toContain(m);
    for (const r of ok) {
      const what = `${r.engine} ${r.mode} ${JSON.stringify(r.params)}`;
      for (const f of BROWSER) expect(r, `${what}: ${f}`).toHaveProperty(f);
      expect(r.browser as string, what).toMatch(/^Chromium \d+\./);
      expect(r.cross_origin_isolated, what).toBe(true);
      expect(r.threads, what).toBe(1);
      expect(typeof r.engine_version === 'string' && r.engine_version.length > 0, what).toBe(true);
      expect(r.build_s as number, what).toBeGreaterThan(0);
      expect(r.qps as number, what).toBeGreaterThan(0);
      expect(r.bytes_per_vector as number, what).toBeGreaterThan(0);
      expect(r.page_errors, what).toBe(0);
      if (r.knob) expect(typeof (r.params as Record<string, unknown>)[r.knob as string], what).toBe('number');
    }
    const h = ok.filter((r) => r.engine === 'horosvec');
    for (const r of h) {
      expect(r.kernel).toBe('wasm-simd128');
      expect(r.load_s as number).toBeGreaterThan(0);
      expect(r.engine_bytes_per_vector as number).toBeGreaterThan(0);
    }
    // recall floors on the sample's 2,000 rows: the graphs at ef 64, the exact engines everywhere
    const at = (e: string, mode: string, ef: number) => ok.find((r) => r.engine === e && r.mode === mode && (r.params as { ef?: number }).ef === ef);
    expect(at('horosvec', 'vamana-rabitq1', 64)?.recall_mean as number).toBeGreaterThanOrEqual(0.9);
    expect(at('hnswlib-wasm', 'hnsw', 64)?.recall_mean as number).toBeGreaterThanOrEqual(0.9);
    expect(at('edgevec', 'hnsw', 64)?.recall_mean as number).toBeGreaterThanOrEqual(0.9);
    for (const r of ok.filter((x) => ['voy', 'orama'].includes(x.engine as string))) expect(r.recall_mean as number, r.engine).toBeGreaterThanOrEqual(0.99);
    // EdgeVec is built with l2 (its cosine ranks wrongly) and the record says so
    for (const r of ok.filter((x) => x.engine === 'edgevec')) {
      expect(r.engine_metric).toBe('l2');
      expect(String(r.metric_note)).toMatch(/l2/);
    }
  });

  it('rejects bad options with a one-line error, before running anything', () => {
    for (const args of [['--bogus'], ['--sweeps', 'nope'], ['--engines', 'nope'], ['--n', '0'], ['--k', '30', '--n', '20'], ['--efs', '4'], ['--out', join(ROOT, 'package.json')], ['--sweeps='], ['--sweeps', 'writes', '--engines', 'hnswlib']]) {
      const r = spawnSync(process.execPath, ['bench/run.mjs', ...args, '--dry-run'], { cwd: ROOT, encoding: 'utf8' });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^bench: /);
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
  });

  it('names `open` and `concurrency` as aliases of the search sweep', () => {
    const r = spawnSync(process.execPath, ['bench/run.mjs', '--sweeps', 'search,writes,open', '--engines', 'horosvec,hnswlib,sqlite-vec', '--dry-run'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const jobs = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { kind: string; engine: string });
    expect(jobs.filter((j) => j.kind === 'search').map((j) => j.engine)).toEqual(['horosvec', 'horosvec', 'horosvec', 'horosvec', 'horosvec', 'hnswlib', 'sqlite-vec']);
    // one writes job per (medium, durability, engine), the two engines side by side, order swapped
    const w = jobs.filter((j) => j.kind === 'writes') as unknown as { engine: string; media: string[]; durabilities: string[] }[];
    expect(w.map((j) => j.engine)).toEqual(['horosvec', 'sqlite-vec', 'sqlite-vec', 'horosvec', 'horosvec', 'sqlite-vec', 'sqlite-vec', 'horosvec', 'horosvec', 'sqlite-vec', 'sqlite-vec', 'horosvec']);
    expect(w.map((j) => `${j.media.join()}/${j.durabilities.join()}`)).toEqual(['tmpfs/full', 'tmpfs/full', 'tmpfs/normal', 'tmpfs/normal', 'tmpfs/off', 'tmpfs/off', 'disk/full', 'disk/full', 'disk/normal', 'disk/normal', 'disk/off', 'disk/off']);
    for (const s of ['search', 'concurrency', 'open', 'writes']) expect(r.stderr).toContain(join('bench-results', s, `${rev()}.jsonl`));
  });

  it('turns the records into BENCHMARKS.md and SVG plots', () => {
    const out = join(dir, 'BENCHMARKS.md');
    const rep = spawnSync('npm', ['run', 'bench:report', '--', '--in', join(dir, 'results'), '--out', out, '--plots', join(dir, 'plots')], { cwd: ROOT, encoding: 'utf8' });
    expect(rep.status, rep.stderr).toBe(0);
    const md = readFileSync(out, 'utf8');
    expect(md).toContain('npm run bench:report');
    // the browser sweep's section: its table and issue 17's targets, each with a verdict
    expect(md).toContain('## Browser (headless Chromium)');
    expect(md).toMatch(/QPS at recall 0\.95 ≥ 4× the best other engine.*\| (PASS|FAIL|not measured) \|/);
    expect(md).toMatch(/memory per vector reported for every engine \| 6 of 6 \| PASS \|/);
    const svgs = readdirSync(join(dir, 'plots')).filter((f) => f.endsWith('.svg'));
    expect(svgs.length).toBeGreaterThan(0);
    for (const f of svgs) expect(readFileSync(join(dir, 'plots', f), 'utf8')).toContain('<svg');
  });

  it('compares only series measured on the machine of a sweep\'s newest record', () => {
    // the same records, sqlite-vec's search records moved to another machine and an older date
    const moved = join(dir, 'moved');
    cpSync(join(dir, 'results'), moved, { recursive: true });
    const file = join(moved, 'search', readdirSync(join(moved, 'search'))[0]);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    for (const r of lines) if (r.engine === 'sqlite-vec') Object.assign(r, { date: '2000-01-01T00:00:00.000Z', machine: { ...r.machine, cpu: 'Another CPU', cpu_id: undefined } });
    writeFileSync(file, `${lines.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const out = join(dir, 'moved.md');
    const rep = spawnSync(process.execPath, ['bench/report.mjs', '--in', moved, '--out', out, '--plots', join(dir, 'moved-plots')], { cwd: ROOT, encoding: 'utf8' });
    expect(rep.status, rep.stderr).toBe(0);
    const md = readFileSync(out, 'utf8');
    expect(md).toContain('### Not shown: series whose newest records are from another machine');
    expect(md).toMatch(/\| search \| sqlite-vec vec0-scan \| Another CPU, \d+ cores \|/);
    // nothing in the search section compares with it
    const search = md.slice(md.indexOf('## Search'), md.indexOf('## Concurrency'));
    expect(search).not.toContain('sqlite-vec');
  });
});

describe('bench/compare.mjs over the committed records', () => {
  it('prints the search ratios of a revision against the older records, flagging moves beyond ±5 %', () => {
    // aae2e25: horosvec re-measured; the base view takes horosvec from 9aa891b, hnswlib from 5a2a92a
    const r = spawnSync(process.execPath, ['bench/compare.mjs', '--head', 'aae2e25'], { cwd: ROOT, encoding: 'utf8' });
    expect([0, 3], r.stderr).toContain(r.status);
    const line = r.stdout.split('\n').find((l) => /^horosvec vamana-rabitq1\s+hnswlib hnsw\s+QPS at recall 0\.95/.test(l));
    // the same ratio as BENCHMARKS.md's search table (3.02× at 0.95) against 2.87× before
    expect(line, r.stdout).toMatch(/2\.87×\s+3\.02×\s+\+5\.0 %/);
    expect(r.stdout).toMatch(/sqlite-vec vec0-scan\s+QPS \(both exact\)/);
    expect(r.stdout).toContain('no writes records at aae2e25');
  });

  it('compares write throughput per op, medium and durability; the same revision twice changes nothing', () => {
    const r = spawnSync(process.execPath, ['bench/compare.mjs', '--head', '9aa891b', '--base', '9aa891b'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/horosvec durable-sqlite-wal\s+sqlite-vec vec0-wal\s+insert-single tmpfs durability=full writers=1 batch=1\s+[\d.]+×\s+[\d.]+×\s+\+0\.0 %/);
    expect(r.stdout).not.toMatch(/ {2}!! {2}/);
  });

  it('exits 1 without records at the head revision, 2 on a bad option', () => {
    expect(spawnSync(process.execPath, ['bench/compare.mjs', '--head', '0000000'], { cwd: ROOT, encoding: 'utf8' }).status).toBe(1);
    expect(spawnSync(process.execPath, ['bench/compare.mjs', '--bogus'], { cwd: ROOT, encoding: 'utf8' }).status).toBe(2);
  });
});

describe('bench/lib/protocol.mjs timeLoop: the one timing loop (the matrix and bench/ef-sweep.mjs)', () => {
  type Timed = { qps: number; p50_ms: number; p99_ms: number; calls: number; seconds: number; cpu_s?: number };
  type TimeLoop = (one: (i: number) => unknown, o: { nq?: number; seconds?: number; warmup?: number; cpu?: boolean }) => Promise<Timed>;

  it('runs the warm-up untimed, then numbers the calls from 0 modulo nq, at least one; cpu_s only when asked', async () => {
    const { timeLoop } = (await import(pathToFileURL(join(ROOT, 'bench/lib/protocol.mjs')).href)) as { timeLoop: TimeLoop };
    const seen: number[] = [];
    const t = await timeLoop((i) => seen.push(i), { nq: 3, seconds: 0, warmup: 4 });
    expect(seen).toEqual([0, 1, 2, 0, 0]);
    expect(t.calls).toBe(1);
    expect(t).not.toHaveProperty('cpu_s');
    const c = await timeLoop(async () => {}, { seconds: 0.05, cpu: true });
    expect(c.calls).toBeGreaterThan(1);
    expect(c.seconds).toBeGreaterThanOrEqual(0.05);
    expect(typeof c.cpu_s).toBe('number');
    expect(c.p99_ms).toBeGreaterThanOrEqual(c.p50_ms);
  });

  it('bench/ef-sweep.mjs has no clock, percentile or hnswlib runner of its own', () => {
    const src = readFileSync(join(ROOT, 'bench', 'ef-sweep.mjs'), 'utf8');
    expect(src).not.toMatch(/HierarchicalNSW|hrtime|performance\.now|percentile\(|searchKnn\(/);
    expect(src).toMatch(/from '\.\/lib\/engines\.mjs'/);
    expect(src).toMatch(/timeLoop\(/);
  });
});
