// Numeric command-line arguments shared by `horosvec bench` (npm/cli/bench.js) and the
// repository's bench/ef-sweep.mjs: each parses a string from node:util's parseArgs, or throws a
// UsageError naming the flag and its range.
import { UsageError } from './errors.js';

/** An integer flag in [min, max]; `def` when absent. */
export function intArg(values, name, def, min, max = Number.MAX_SAFE_INTEGER) {
  const raw = values[name];
  if (raw === undefined) return def;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** A finite number flag in [min, max]; `def` when absent. */
export function numArg(values, name, def, min, max) {
  const raw = values[name];
  if (raw === undefined) return def;
  const x = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(x) || x < min || x > max) throw new UsageError(`--${name} must be a number from ${min} to ${max}, got "${raw}"`);
  return x;
}

/** `--ef 16,32,64`: distinct integers from 1 to 100000 in the given order; a copy of `defaults` when absent. */
export function efList(raw, defaults) {
  if (raw === undefined) return defaults.slice();
  const out = [];
  for (const p of raw.split(',').map((x) => x.trim())) {
    if (!/^\d+$/.test(p) || Number(p) < 1 || Number(p) > 100_000) throw new UsageError(`--ef must be a comma-separated list of integers from 1 to 100000, got "${raw}"`);
    if (!out.includes(Number(p))) out.push(Number(p));
  }
  return out;
}
