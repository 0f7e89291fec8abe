// The provenance every benchmark record carries, in one place: the git revision measured and
// whether the tree differed from it, the machine, Node, the date and the command. Used by every
// script that writes records under bench-results/ (bench/*.mjs, scripts/crash-test.mjs), and by
// bench/run.mjs to name the file a run writes (`bench-results/<bench>/<rev>[-dirty].jsonl`).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { cpus, totalmem, loadavg } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is bench/lib/provenance.mjs). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The paths whose changes make a measurement "dirty": what the benchmarks build and run. */
export const MEASURED_PATHS = ['core', 'bindings-node', 'bindings-wasm', 'npm', 'bench'];

/** `git args…` in the repository, trimmed stdout; null when git fails or is absent. */
function git(args) {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
  } catch {
    return null;
  }
}

/** HEAD's short hash, or null outside a git checkout. */
export function gitRev() {
  const rev = git(['rev-parse', '--short', 'HEAD']);
  return rev === '' ? null : rev;
}

/** Whether MEASURED_PATHS differ from HEAD (tracked or untracked files); null without git. */
export function gitDirty() {
  const out = git(['status', '--porcelain', '--', ...MEASURED_PATHS]);
  return out === null ? null : out.length > 0;
}

/** SIMD features that decide which kernels an engine runs (x86-64 and arm64 names of /proc/cpuinfo). */
const SIMD_FLAGS = ['sse4_2', 'avx2', 'fma', 'f16c', 'avx512f', 'avx512bw', 'avx512vl', 'avx512_vpopcntdq', 'avx512_bf16', 'avx512_fp16', 'asimd', 'asimdhp', 'sve'];

/**
 * `{ cpu_id, simd }` from /proc/cpuinfo (Linux; `{}` elsewhere): the CPU's family / model /
 * stepping, and which of SIMD_FLAGS it has. Two hosts with the same model name ("AMD EPYC") can
 * differ in AVX-512, which some engines use and others do not: records from both are then not
 * comparable across runs, only within one.
 */
function cpuInfo() {
  let text;
  try {
    text = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return {};
  }
  const first = text.split('\n\n')[0];
  const field = (name) => first.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1]?.trim();
  const flags = new Set((field('flags') ?? field('Features') ?? '').split(/\s+/));
  const id = ['cpu family', 'model', 'stepping'].map(field);
  return {
    cpu_id: id.every((v) => v !== undefined) ? `family ${id[0]} model ${id[1]} stepping ${id[2]}` : undefined,
    simd: SIMD_FLAGS.filter((f) => flags.has(f)),
  };
}

/** `{ cpu, cores, mem_gb, cpu_id, simd }` of this machine. */
export function machine() {
  return { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, mem_gb: Math.round(totalmem() / 2 ** 30), ...cpuInfo() };
}

/** The command that produced the records: HV_BENCH_COMMAND (set by bench/run.mjs) or this process's. */
export function commandLine() {
  return process.env.HV_BENCH_COMMAND ?? `node ${process.argv.slice(1).join(' ')}`;
}

let fixed = null;

/**
 * `{ git_rev, git_dirty, machine, node, command, date, load_avg }`: git is asked once per process;
 * the date and the machine's load average (1, 5 and 15 min, from os.loadavg(): how busy the
 * machine was while the record was measured) are those of the call.
 */
export function provenance() {
  fixed ??= { git_rev: gitRev(), git_dirty: gitDirty(), machine: machine(), node: process.version, command: commandLine() };
  return { ...fixed, date: new Date().toISOString(), load_avg: loadavg().map((x) => Number(x.toFixed(2))) };
}

/** The revision label of a record or a provenance: `<git_rev>` or `<git_rev>-dirty` ("unknown" without git). */
export function revLabel(p) {
  const rev = p.git_rev ?? p.git ?? 'unknown';
  return p.git_dirty === true ? `${rev}-dirty` : rev;
}

/**
 * The horosvec binary a `backend` ('native' or 'wasm') loads from npm/: `{ binary, binary_mtime,
 * binary_sha256 }` (file name, modification time, first 16 hex digits of its SHA-256), all null
 * when absent. Which build was measured, beside the revision.
 */
export function binaryInfo(backend) {
  const p = backend === 'wasm' ? join(ROOT, 'npm', 'wasm', 'horosvec_wasm_bg.wasm') : join(ROOT, 'npm', 'native', 'horosvec.linux-x64-gnu.node');
  try {
    const st = statSync(p);
    return { binary: basename(p), binary_mtime: st.mtime.toISOString(), binary_sha256: createHash('sha256').update(readFileSync(p)).digest('hex').slice(0, 16) };
  } catch {
    return { binary: null, binary_mtime: null, binary_sha256: null };
  }
}
