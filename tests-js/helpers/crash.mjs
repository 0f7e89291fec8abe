// The crash test's loop, shared by tests-js/durable.test.ts (30 kills) and
// scripts/crash-test.mjs (300+): start tests-js/helpers/crash-writer.mjs on a collection
// directory, SIGKILL it after a random delay, reopen the collection and check that
//   * every acknowledged batch is wholly present (its records and their metadata),
//   * every batch that was submitted but not acknowledged is wholly present or wholly absent,
//   * an acknowledged delete is applied,
//   * search still works;
// then close and go again with a new tag, on the same directory.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Collection } from 'horosvec';

const WRITER = join(dirname(fileURLToPath(import.meta.url)), 'crash-writer.mjs');

/** Runs the writer until killed after `ms` milliseconds (counted from its "open" line). */
function runWriter(dir, tag, seed, ms, segments) {
  return new Promise((resolve, reject) => {
    const args = [WRITER, dir, tag, String(seed), ...(segments ? ['segments'] : [])];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timer = null;
    child.stdout.on('data', (d) => {
      out += d;
      if (timer === null && out.includes('open\n')) timer = setTimeout(() => child.kill('SIGKILL'), ms);
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    // a writer that never opens (e.g. a lock left behind) fails the round
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      if (timer !== null) clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`writer exited with ${code ?? signal}: ${err}`));
      else if (!out.includes('open\n')) reject(new Error(`writer killed before opening: ${err}`));
      else resolve(out);
    });
  });
}

/**
 * `kills` rounds on directory `dir`; returns { kills, acked, unackedPresent, unackedAbsent,
 * records, maxSealedSegments } or throws on the first violation. With `segments`, the writer
 * seals every 150 records and merges past 3 sealed segments, so kills land during background
 * seals and compactions too. With `freshEvery` > 0 the directory is emptied every `freshEvery`
 * rounds: a writer killed every few hundred ms piles up a mutable backlog that no seal can
 * finish within its life, so without fresh starts later kills only ever land in seal builds.
 * `segmentFilesSeen` counts the distinct segment files that appeared (seals and compactions that
 * finished).
 */
export async function crashRounds(dir, kills, { seed = 1, minMs = 20, maxMs = 400, segments = false, freshEvery = 0, log = () => {} } = {}) {
  let s = seed >>> 0;
  const rand = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const stats = { kills: 0, acked: 0, unackedPresent: 0, unackedAbsent: 0, records: 0, maxSealedSegments: 0, orphanFilesRemoved: 0, segmentFilesSeen: 0, freshStarts: 0 };
  const segmentFiles = () => readdirSync(dir).filter((f) => f.startsWith('seg-')).length;
  const seen = new Set();
  for (let round = 0; round < kills; round++) {
    if (freshEvery > 0 && round > 0 && round % freshEvery === 0) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      stats.freshStarts++;
    }
    const tag = `r${round}`;
    const ms = minMs + Math.floor(rand() * (maxMs - minMs));
    const out = await runWriter(dir, tag, seed + round, ms, segments);
    stats.kills++;
    const submitted = new Map();
    const acked = new Set();
    const delSubmitted = new Set();
    const delAcked = new Set();
    for (const line of out.split('\n')) {
      const [what, b, n] = line.split(' ');
      if (what === 'sub') submitted.set(Number(b), Number(n));
      else if (what === 'ack') acked.add(Number(b));
      else if (what === 'dsub') delSubmitted.add(Number(b));
      else if (what === 'del' && Number(n) === 1) delAcked.add(Number(b));
    }
    for (const f of readdirSync(dir)) if (f.startsWith('seg-')) seen.add(`${stats.freshStarts}/${f}`);
    stats.segmentFilesSeen = seen.size;
    const filesBefore = segmentFiles();
    const col = await Collection.open(dir);
    // files of a seal or compaction the kill interrupted (or whose old files it left) are gone
    stats.orphanFilesRemoved += filesBefore - segmentFiles();
    try {
      for (const [b, n] of submitted) {
        let present = 0;
        for (let j = 1; j < n; j++) {
          const rec = col.get(`${tag}-${b}-${j}`);
          if (rec !== undefined) {
            present++;
            if (rec.metadata?.id !== `${tag}-${b}-${j}`) throw new Error(`round ${round}: record ${tag}-${b}-${j} has metadata ${JSON.stringify(rec.metadata)}`);
          }
        }
        const first = col.get(`${tag}-${b}-0`) !== undefined;
        if (acked.has(b)) {
          if (present !== n - 1) throw new Error(`round ${round}: acknowledged batch ${b} has ${present + 1} of ${n} records`);
          if (delAcked.has(b) && first) throw new Error(`round ${round}: acknowledged delete of ${tag}-${b}-0 not applied`);
          if (!delSubmitted.has(b) && !first) throw new Error(`round ${round}: acknowledged record ${tag}-${b}-0 lost`);
          stats.acked++;
        } else {
          // not acknowledged: all or nothing (record 0 may have been deleted after it)
          if (present !== 0 && present !== n - 1) throw new Error(`round ${round}: unacknowledged batch ${b} is partly stored (${present} of ${n - 1})`);
          if (n === 1 ? false : present === 0 && first) throw new Error(`round ${round}: unacknowledged batch ${b} is partly stored (only record 0)`);
          if (present > 0 || (n === 1 && first)) stats.unackedPresent++;
          else stats.unackedAbsent++;
        }
      }
      const hits = await col.search(new Float32Array(8).fill(0.5), { k: 5 });
      if (col.size > 0 && hits.length !== Math.min(5, col.size)) throw new Error(`round ${round}: search returned ${hits.length} hits`);
      stats.records = col.size;
      stats.maxSealedSegments = Math.max(stats.maxSealedSegments, col.stats().sealedSegments);
    } finally {
      await col.close();
    }
    log(`kill ${round + 1}/${kills} after ${ms} ms: ${acked.size} acknowledged, ${submitted.size - acked.size} in flight; ${stats.records} records, ${stats.maxSealedSegments} sealed segments at most, ${stats.orphanFilesRemoved} orphan files removed, ${stats.segmentFilesSeen} segment files seen so far`);
  }
  return stats;
}
