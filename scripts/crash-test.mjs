#!/usr/bin/env node
// The long crash test: `node scripts/crash-test.mjs [--kills 300] [--dir PATH] [--seed 1] [--segments]
// [--fresh-every 10]`. `--segments` makes the writer seal every 150 records and compact past 3
// segments, so kills land during background seals and compactions; `--fresh-every N` empties the
// directory every N kills (0: never), so that seals keep finishing between kills (see
// tests-js/helpers/crash.mjs).
// Kills a writing child process with SIGKILL `--kills` times at random moments and checks the
// collection after each kill (see tests-js/helpers/crash.mjs). Prints one line per kill and a
// final JSON summary; exits 1 on the first violation. `npm test` runs the same loop 30 times.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { execSync } from 'node:child_process';
import { crashRounds } from '../tests-js/helpers/crash.mjs';
import { provenance } from '../bench/lib/provenance.mjs';

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '300' },
    dir: { type: 'string' },
    seed: { type: 'string', default: '1' },
    segments: { type: 'boolean', default: false },
    'fresh-every': { type: 'string', default: '10' },
  },
});
const freshEvery = Number(values['fresh-every']);
if (!Number.isInteger(freshEvery) || freshEvery < 0) {
  console.error(`crash-test: --fresh-every must be an integer >= 0, got ${values['fresh-every']}`);
  process.exit(2);
}
const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'horosvec-crash-'));
mkdirSync(dir, { recursive: true });
let medium = 'unknown';
try {
  medium = execSync(`df --output=fstype ${JSON.stringify(dir)} | tail -1`, { encoding: 'utf8' }).trim();
} catch {
  // df missing: leave unknown
}
const t0 = Date.now();
try {
  const stats = await crashRounds(dir, Number(values.kills), { seed: Number(values.seed), segments: values.segments, freshEvery, log: (l) => console.log(l) });
  // the record of bench-results/crash-test/<rev>.jsonl
  console.log(JSON.stringify({ ok: true, segments: values.segments, freshEvery, ...stats, dir, filesystem: medium, seconds: (Date.now() - t0) / 1000, ...provenance(), command: `node scripts/crash-test.mjs ${process.argv.slice(2).join(' ')}` }));
} catch (e) {
  console.log(JSON.stringify({ ok: false, error: String(e?.message ?? e), dir, filesystem: medium }));
  process.exitCode = 1;
} finally {
  if (values.dir === undefined && process.exitCode !== 1) rmSync(dir, { recursive: true, force: true });
}
