// Helpers of the hygiene cases (ts-*.mjs, bench-installed.mjs, package-hygiene.mjs): a fresh
// project in ctx.tmp with horosvec installed from the packed tarballs (scripts blocked), and the
// repository's pinned tools (typescript, @types/node) linked in rather than downloaded.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hostKey } from '../project.mjs';

/** Runs `cmd args` in `cwd`; returns stdout; throws with stdout+stderr on failure. */
export function sh(cmd, args, cwd, env = {}) {
  try {
    return execFileSync(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(' ')} failed (exit ${e.status}):\n${e.stdout ?? ''}${e.stderr ?? ''}`.slice(0, 6000));
  }
}

/**
 * A project `dir` (created) with `package.json` `pkg`, horosvec installed from the tarballs
 * (main and this host's platform package when packed: npm refuses, EBADPLATFORM, a foreign
 * platform's tarball named on its command line), with (when `typescript`)
 * `@types/node` and the packages of `link` linked from the repository's node_modules.
 */
export function project(ctx, dir, pkg, { typescript = false, link = [] } = {}) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'hv-eco-case', version: '1.0.0', private: true, ...pkg }, null, 2));
  const tarballs = [ctx.tarballs.main];
  const platform = ctx.tarballs.platforms?.[hostKey()];
  if (platform) tarballs.push(platform);
  sh('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', '--offline', ...tarballs], dir);
  if (typescript) {
    mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
    symlinkSync(join(ctx.root, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'));
  }
  // a framework an adapter needs (an optional peer dependency, which the user installs)
  for (const name of link) {
    mkdirSync(join(dir, 'node_modules', dirname(name)), { recursive: true });
    symlinkSync(join(ctx.root, 'node_modules', name), join(dir, 'node_modules', name));
  }
  return dir;
}

/** The repository's pinned tsc. */
export const tsc = (ctx, dir, args = []) => sh(process.execPath, [join(ctx.root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir, ...args], dir);
