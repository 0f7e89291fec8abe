// The results layout, in one place: `bench-results/<bench>/<rev>.jsonl`, one JSON record a line,
// where <bench> is the sweep or script that wrote the records (`search`, `writes`, `ef-sweep`, …)
// and <rev> the git revision measured (`git_rev` in the records), `-dirty` appended when the tree
// differed from it (bench-results/README.md). Read by bench/report.mjs, bench/compare.mjs and
// bench/readme.mjs; written by bench/run.mjs (the other scripts print records on stdout).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, revLabel } from './provenance.mjs';

/** The committed results folder. */
export const RESULTS = join(ROOT, 'bench-results');

/** The file a run of `bench` at provenance `p` writes under the results folder `root`. */
export const resultFile = (root, bench, p) => join(root, bench, `${revLabel(p)}.jsonl`);

/** A line that is not a JSON record: thrown with its file and line number. */
export class RecordError extends Error {}

/** The records of one file (blank lines skipped); a malformed line throws a RecordError. */
export function readRecords(file) {
  const records = [];
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      records.push(JSON.parse(line));
    } catch (e) {
      throw new RecordError(`${file}:${i + 1}: malformed JSON: ${e.message}`);
    }
  });
  return records;
}

/**
 * The revision files of `bench` under `root`: `[{ rev, file, records }]`, oldest first (by the
 * newest `date` in each file; files without dates first, then by name). Empty when the bench has
 * no folder.
 */
export function revisions(root, bench) {
  const dir = join(root, bench);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  const newest = (rs) => rs.map((r) => r.date).filter((d) => typeof d === 'string').sort().at(-1) ?? '';
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => {
      const records = readRecords(join(dir, f));
      return { rev: f.slice(0, -'.jsonl'.length), file: join(dir, f), records, newest: newest(records) };
    })
    .sort((a, b) => (a.newest < b.newest ? -1 : a.newest > b.newest ? 1 : a.rev < b.rev ? -1 : a.rev > b.rev ? 1 : 0));
}

/** The record's series for "newest records" selection: engine, backend, mode. */
export const seriesKey = (r) => JSON.stringify([r.engine ?? null, r.backend ?? null, r.mode ?? null]);

/**
 * The newest records of every series among `revs` (as `revisions` returns them): for each series
 * (`key`), the records of the newest revision file holding it. What the report shows by default.
 * Every record comes back with `_rev`, the name of its file.
 */
export function newestPerSeries(revs, key = seriesKey) {
  const chosen = new Map();
  for (const { rev, records } of revs) {
    for (const k of new Set(records.map(key))) chosen.set(k, rev); // later (newer) files win
  }
  return revs.flatMap(({ rev, records }) => records.filter((r) => chosen.get(key(r)) === rev).map((r) => ({ ...r, _rev: rev })));
}
