// The errors of the command-line tools (npm/cli/horosvec.js, and bench/ef-sweep.mjs behind its
// `bench` subcommand): a bad command line exits with code 2 (`horosvec: message`, then a usage
// line); a data or runtime error with code 1 (`horosvec: HV_CODE: message`, the code from
// docs/errors.md, HV_INTERNAL when the error has none).

import { hvError } from '../lib/errors.js';

/** A bad command line (exit code 2); `usage` marks it (the check is by that field, not the class). */
export class UsageError extends Error {
  usage = true;
}

/** A HorosvecError whose `code` is `code` (an `HV_*` code). */
export function coded(code, message) {
  return hvError(code, message);
}

/**
 * The first line of a node:util parseArgs error, without its hint about positional arguments;
 * for a value starting with a dash (`--ef -5`: "argument is ambiguous"), with parseArgs's own
 * hint about `--opt=-value`.
 */
export function parseArgsMessage(e) {
  const lines = String(e && e.message).split('\n');
  const first = lines[0].replace(/\. To specify a positional argument.*$/, '');
  const dash = lines.find((l) => l.startsWith('To specify an option argument starting with a dash'));
  return /argument is ambiguous/.test(first) && dash ? `${first} ${dash}` : first;
}

/**
 * Prints `e` on stderr as the tools do, `shortUsage` after a usage error; the exit code (2 for a
 * usage error, 1 otherwise). HOROSVEC_DEBUG set adds the stack of a data / runtime error.
 */
export function printError(e, shortUsage) {
  if (e && e.usage === true) {
    process.stderr.write(`horosvec: ${e.message}\n${shortUsage}\n`);
    return 2;
  }
  const code = e && typeof e.code === 'string' && e.code.startsWith('HV_') ? e.code : 'HV_INTERNAL';
  let msg = String(e && e.message !== undefined ? e.message : e);
  if (msg.startsWith(`${code}: `)) msg = msg.slice(code.length + 2);
  process.stderr.write(`horosvec: ${code}: ${msg}\n`);
  if (process.env.HOROSVEC_DEBUG && e && e.stack) process.stderr.write(`${e.stack}\n`);
  return 1;
}
