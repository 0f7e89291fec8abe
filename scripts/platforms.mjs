#!/usr/bin/env node
// The platform packages' manifests, from npm/lib/platform.js's table and the main package's
// version, license, repository and engines. `node scripts/platforms.mjs --write` writes
// npm/platforms/<key>/package.json and the main package's `napi.targets`; run it after changing
// any of those (tests-js/platform.test.ts fails while they disagree).
//
// The main package's `optionalDependencies` (every @horosvec/<key> at its exact version) are
// added at pack time by `publishManifest` (scripts/pack.mjs), not kept in npm/package.json: npm/
// is a workspace of the repository, and `npm ci` refuses a lockfile without entries for
// dependencies that are not published yet (and platform packages cannot be workspaces: npm
// refuses a workspace whose os/cpu differ from the machine's).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PLATFORMS, binaryName, packageName } from '../npm/lib/platform.js';

export const npmDir = fileURLToPath(new URL('../npm/', import.meta.url));
export const platformDir = (key) => join(npmDir, 'platforms', key);
export const readMain = () => JSON.parse(readFileSync(join(npmDir, 'package.json'), 'utf8'));

/** The package.json of platform package `key`. */
export function platformManifest(key, main = readMain()) {
  const p = PLATFORMS[key];
  return {
    name: packageName(key),
    version: main.version,
    description: `The horosvec native addon for ${p.target} (installed by horosvec as an optional dependency; not used on its own).`,
    license: main.license,
    ...(main.repository ? { repository: main.repository } : {}),
    ...(main.homepage ? { homepage: main.homepage } : {}),
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc ? { libc: [p.libc] } : {}),
    main: binaryName(key),
    files: [binaryName(key)],
    engines: main.engines,
  };
}

/** The main package's manifest as published: npm/package.json plus the optional platform packages. */
export function publishManifest(main = readMain()) {
  return {
    ...main,
    optionalDependencies: Object.fromEntries(Object.keys(PLATFORMS).map((key) => [packageName(key), main.version])),
  };
}

export const napiTargets = () => Object.values(PLATFORMS).map((p) => p.target);

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!process.argv.includes('--write')) {
    console.error('usage: node scripts/platforms.mjs --write');
    process.exit(2);
  }
  const main = readMain();
  for (const key of Object.keys(PLATFORMS)) {
    mkdirSync(platformDir(key), { recursive: true });
    writeFileSync(join(platformDir(key), 'package.json'), `${JSON.stringify(platformManifest(key, main), null, 2)}\n`);
  }
  main.napi = { ...main.napi, targets: napiTargets() };
  writeFileSync(join(npmDir, 'package.json'), `${JSON.stringify(main, null, 2)}\n`);
  console.log(`wrote ${Object.keys(PLATFORMS).length} platform package.json files at ${main.version}`);
}
