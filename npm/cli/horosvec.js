#!/usr/bin/env node
// horosvec command-line tool (the package's `horosvec` bin):
//
//   horosvec import   load an index graph from the flat files of other tools (DiskANN / ParlayANN
//                     style) into a snapshot (see `horosvec import --help`, npm/cli/graph-io.js)
//   horosvec export   write a snapshot's vectors and graph as those flat files
//   horosvec bench    horosvec's recall and throughput (exact scan, then the index across ef) on
//                     the user's vector files or the sample shipped in the package (npm/cli/bench.js;
//                     the repository's bench/ef-sweep.mjs adds competitors and datasets)
//
// Exit codes: 0 success, 1 data / runtime error (`horosvec: HV_CODE: message` on stderr),
// 2 bad command line (one-line error and the usage on stderr).

import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { coded, printError, parseArgsMessage, UsageError } from './errors.js';
import { runImport, runExport, IMPORT_USAGE, EXPORT_USAGE } from './graph-io.js';

const PKG_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const USAGE =
  'usage: horosvec bench (--dataset sample | --base FILE --queries FILE [--groundtruth FILE]) [options]  (horosvec bench --help)\n' +
  `       ${IMPORT_USAGE.slice(7)}\n` +
  `       ${EXPORT_USAGE.slice(7)}\n` +
  '       horosvec --help | --version';

const SHORT_USAGE = 'usage: horosvec bench|import|export … (see horosvec --help)';

const HELP = `horosvec — embedded vector database, command-line tool

${USAGE}

horosvec import, horosvec export
  Move an index graph between horosvec snapshots and flat files: vectors (.fvecs, .f16vecs,
  .bvecs) and a fixed-degree adjacency file; see horosvec import --help and horosvec export --help.

horosvec bench
  Recall@k, single-query and batch QPS and latency of an exact scan and of the Vamana + RaBitQ
  index across ef, with the build time, on your vector files (.fvecs, .f16vecs, .bvecs; ground
  truth .ivecs, computed exactly when absent) or on --dataset sample (2,000 sentence embeddings
  and 100 queries shipped in the package); see horosvec bench --help. The repository's
  bench/ef-sweep.mjs and \`npm run bench\` compare engines.
`;

function packageVersion() {
  return JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8')).version;
}

let bench = null;

async function main(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === undefined) throw new UsageError('missing command');
  if (cmd === 'bench') {
    bench = await import('./bench.js');
    return bench.runBench(rest, () => import('horosvec'));
  }
  if (cmd === 'import' || cmd === 'export') {
    const lib = await import('horosvec');
    const usage = (msg) => new UsageError(msg);
    return cmd === 'import' ? runImport(rest, lib, usage) : runExport(rest, lib, usage);
  }
  if (cmd === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (cmd.startsWith('-')) {
    let values;
    try {
      ({ values } = parseArgs({
        args: argv,
        strict: true,
        allowPositionals: false,
        options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'V' } },
      }));
    } catch (e) {
      throw new UsageError(parseArgsMessage(e));
    }
    if (values.version) {
      process.stdout.write(`${packageVersion()}\n`);
      return 0;
    }
    process.stdout.write(HELP);
    return 0;
  }
  throw new UsageError(`unknown command "${cmd}"`);
}

// `horosvec bench --json | head`: a closed stdout ends the run quietly; any other write error
// (`> /dev/full`: ENOSPC, a dead terminal: EIO) is a data error (exit 1), not a stack trace
process.stdout.on('error', (e) => {
  if (e && e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  process.exit(printError(coded('HV_IO', `cannot write the output: ${e && e.message !== undefined ? e.message : e}`)));
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    // bench's errors end with its own usage line
    process.exitCode = bench !== null ? bench.reportError(e) : printError(e, SHORT_USAGE);
  },
);
