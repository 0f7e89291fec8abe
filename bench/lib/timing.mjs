// The one timing loop of the benchmarks (warm-up, window, closed-loop clients, percentiles), with
// no Node import: bench/lib/protocol.mjs re-exports it for the matrix's sweeps and
// bench/ef-sweep.mjs, and the browser sweep's page (bench/browser/page.mjs) imports this file
// itself, so the browser's figures come from the same loop. The clock is performance.now()
// (monotonic) in both.

const round = (x, d = 4) => (x === null || x === undefined ? null : Number(x.toFixed(d)));

/** Value at fraction `p` of an ascending array (nearest rank). */
export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/** `{ qps, p50_ms, p99_ms, calls, seconds }` of call latencies `lat` (ms) over `seconds` of wall time. */
export function summarize(lat, seconds) {
  lat.sort((a, b) => a - b);
  return { qps: round(lat.length / seconds, 2), p50_ms: round(percentile(lat, 0.5)), p99_ms: round(percentile(lat, 0.99)), calls: lat.length, seconds: round(seconds, 3) };
}

/** CPU seconds (user + system, all threads of the process) since `from` (a process.cpuUsage()); Node only. */
export function cpuSeconds(from) {
  const c = globalThis.process.cpuUsage(from);
  return (c.user + c.system) / 1e6;
}

/**
 * Closed-loop timing of `one(i)` (sync or async, awaited; `i` counts the calls from 0, modulo `nq`
 * when given) with `clients` concurrent clients, after `warmup` untimed calls (`i` = 0, 1, …), for
 * at least `seconds` (at least one call) or until `max` calls. Latency per call in ms.
 * `{ qps, p50_ms, p99_ms, calls, seconds }`, plus `cpu_s` (user + system CPU seconds of the
 * process over the timed window, all threads; Node only) when `cpu` is set.
 */
export async function timeLoop(one, { nq = Infinity, clients = 1, seconds = 3, warmup = 0, max = Infinity, cpu = false }) {
  for (let i = 0; i < warmup; i++) await one(i % nq);
  const lat = [];
  let next = 0;
  const cpu0 = cpu ? globalThis.process.cpuUsage() : null;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const client = async () => {
    while ((next === 0 || performance.now() < end) && next < max) {
      const i = next++ % nq;
      const s = performance.now();
      await one(i);
      lat.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  const t = summarize(lat, (performance.now() - t0) / 1000);
  return cpu ? { ...t, cpu_s: cpuSeconds(cpu0) } : t;
}
