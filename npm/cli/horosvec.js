#!/usr/bin/env node
// horosvec command-line tool (the package's `horosvec` bin):
//
//   horosvec import   load an index graph from the flat files of other tools (DiskANN / ParlayANN
//                     style) into a snapshot (see `horosvec import --help`, npm/cli/graph-io.js)
//   horosvec export   write a snapshot's vectors and graph as those flat files
//   horosvec bench    in a checkout of the repository only: runs bench/ef-sweep.mjs with the same
//                     arguments (the benchmarks, their datasets and competitors are not shipped)
//
// Exit codes: 0 success, 1 data / runtime error (`horosvec: HV_CODE: message` on stderr),
// 2 bad command line (one-line error and the usage on stderr).

import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { printError, parseArgsMessage, UsageError } from './errors.js';
import { runImport, runExport, IMPORT_USAGE, EXPORT_USAGE } from './graph-io.js';

const PKG_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The repository's benchmark, present only when this package is the repository's npm/ folder. */
const BENCH = join(PKG_DIR, '..', 'bench', 'ef-sweep.mjs');

const USAGE =
  'usage: horosvec bench …  (in a checkout of the repository: node bench/ef-sweep.mjs …; horosvec bench --help)\n' +
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
  The repository's single-engine benchmark (recall, single-query and batch throughput of exact
  search, the Vamana + RaBitQ index or hnswlib-node on one dataset): runs bench/ef-sweep.mjs of the
  checkout this package sits in. Not part of the published package: it needs the repository's
  bench/ folder, its datasets and the competitors' dev dependencies. The matrix of every engine is
  \`npm run bench\` (bench/run.mjs).
`;

function packageVersion() {
  return JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8')).version;
}

/** bench/ef-sweep.mjs of the repository, or a usage error outside a checkout. */
async function benchModule() {
  if (basename(PKG_DIR) !== 'npm' || !existsSync(BENCH)) {
    throw new UsageError('bench runs the repository\'s benchmarks (bench/ef-sweep.mjs), which the published package does not ship: run it from a checkout of the horosvec repository');
  }
  return import(pathToFileURL(BENCH).href);
}

let bench = null;

async function main(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === undefined) throw new UsageError('missing command');
  if (cmd === 'bench') {
    bench = await benchModule();
    return bench.runBench(rest);
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

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    // bench's errors end with its own usage line
    process.exitCode = bench !== null ? bench.reportError(e) : printError(e, SHORT_USAGE);
  },
);
