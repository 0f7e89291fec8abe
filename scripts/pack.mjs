#!/usr/bin/env node
// `node scripts/pack.mjs --out DIR`: the release tarballs. Runs scripts/prepack.mjs, then packs
// the main package `horosvec` (npm/ as its `files` list says, with the optional platform packages added to its manifest:
// scripts/platforms.mjs) and every platform package npm/platforms/<key>/ that holds its binary
// (the host's is copied from npm/native/ when that dir lacks it: scripts/build-native.sh writes
// there), with `npm pack`, into DIR, and prints their paths one per line, main first.
// Exit 1 when the main package cannot be packed; platforms without a binary are skipped (said on
// stderr).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PLATFORMS, binaryName } from '../npm/lib/platform.js';
import { npmDir, platformDir, publishManifest } from './platforms.mjs';

// `npm pack` of directory `dir` into `out`; the tarball's path.
function npmPack(dir, out) {
  const r = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm pack in ${dir} failed (exit ${r.status}): ${r.stderr.trim()}`);
  const [info] = JSON.parse(r.stdout);
  return join(out, info.filename);
}

const { values } = parseArgs({ options: { out: { type: 'string' } } });
if (!values.out) {
  console.error('usage: node scripts/pack.mjs --out DIR');
  process.exit(2);
}
const out = resolve(values.out);
mkdirSync(out, { recursive: true });

// npm/package.json's prepack first (README.md, LICENSE and sample/ into npm/, the .d.cts check):
// the staged copy is packed with --ignore-scripts (its `node ../scripts/prepack.mjs` would not
// resolve there), so without this a fresh checkout's tarball had no README, LICENSE or sample,
// and an older checkout's had stale ones.
const prep = spawnSync(process.execPath, [join(npmDir, '..', 'scripts', 'prepack.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
if (prep.status !== 0) {
  console.error(`pack: scripts/prepack.mjs failed (exit ${prep.status})`);
  process.exit(1);
}

// The main package from a staged copy: the manifest as published, no binary, no platform dirs.
const stage = mkdtempSync(join(tmpdir(), 'horosvec-pack-'));
try {
  cpSync(npmDir, stage, {
    recursive: true,
    filter: (src) => !['native', 'platforms', 'node_modules'].some((d) => src === join(npmDir, d)),
  });
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(publishManifest(), null, 2)}\n`);
  console.log(npmPack(stage, out));
} catch (e) {
  console.error(`pack: ${e.message}`);
  process.exit(1);
} finally {
  rmSync(stage, { recursive: true, force: true });
}

for (const key of Object.keys(PLATFORMS)) {
  const dir = platformDir(key);
  const bin = join(dir, binaryName(key));
  const built = join(npmDir, 'native', binaryName(key));
  if (!existsSync(bin) && existsSync(built)) copyFileSync(built, bin);
  // kept as it is (it may be the release build, e.g. plat's glibc-2.28 one), but said when stale
  else if (existsSync(bin) && existsSync(built) && statSync(built).mtimeMs > statSync(bin).mtimeMs) {
    console.error(`pack: npm/platforms/${key}/${binaryName(key)} is older than npm/native's build; packing it anyway (delete it to pack the newer one)`);
  }
  if (!existsSync(bin)) {
    console.error(`pack: skipped @horosvec/${key} (no ${binaryName(key)} in npm/platforms/${key}/)`);
    continue;
  }
  console.log(npmPack(dir, out));
}
