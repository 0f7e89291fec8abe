// CPU time of a process tree from /proc (Linux): the browser sweep's QPS per CPU second
// (bench/browser/job.mjs) and the page-open benchmark's CPU per visit (bench/page-open.mjs).
import { readFileSync, readdirSync } from 'node:fs';

const TICK = 100; // USER_HZ, the unit of /proc/<pid>/stat's times (100 on Linux)

/**
 * CPU seconds (user + system) used so far by the descendants of process `root` (this process's:
 * the browser playwright started and its renderer, GPU and utility processes), from /proc; null
 * where /proc is absent. A window's
 * QPS per CPU second of them is far less sensitive to other jobs on the machine than its QPS.
 */
export function treeCpuSeconds(root) {
  let entries;
  try {
    entries = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const procs = [];
  for (const d of entries) {
    try {
      const st = readFileSync(`/proc/${d}/stat`, 'utf8');
      // after the command name (in parentheses, which may hold spaces): state ppid … utime stime
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      procs.push({ pid: Number(d), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // the process ended while /proc was read
    }
  }
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) {
      if (!tree.has(p.pid) && tree.has(p.ppid)) {
        tree.add(p.pid);
        grew = true;
      }
    }
  }
  return procs.filter((p) => p.pid !== root && tree.has(p.pid)).reduce((t, p) => t + p.ticks, 0) / TICK;
}

/**
 * Waits until the descendants of process `root` are idle: below `maxShare` of one core over a
 * window of `windowMs` (a browser just started keeps busy for seconds: its own user interface is
 * built in a renderer of its own, e.g. Chromium's omnibox popup, `chrome://omnibox-popup.top-chrome`).
 * Gives up after `timeoutMs`. Returns the ms waited, or null where /proc is absent.
 */
export async function waitIdle(root, { windowMs = 500, maxShare = 0.05, timeoutMs = 20_000 } = {}) {
  const t0 = performance.now();
  let before = treeCpuSeconds(root);
  if (before === null) return null;
  for (;;) {
    await new Promise((r) => setTimeout(r, windowMs));
    const now = treeCpuSeconds(root);
    const waited = performance.now() - t0;
    if ((now - before) * 1000 < maxShare * windowMs || waited >= timeoutMs) return Math.round(waited);
    before = now;
  }
}
