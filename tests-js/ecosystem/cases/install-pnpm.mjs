// pnpm (root devDependency) from the local registry, scripts blocked: `pnpm add horosvec` links
// this host's platform package only and the probe runs natively with a durable reopen; a
// project whose pnpm-workspace.yaml sets supportedArchitectures to darwin/arm64 gets
// @horosvec/darwin-arm64 only, and `--os linux --cpu arm64 --libc musl` gets linux-arm64-musl
// only. Cost: three installs (~2-5 s each) on the shared registry.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostKey, run } from '../project.mjs';
import { PROBE, assertNative, probeResult, registry } from '../registry.mjs';

// the @horosvec packages pnpm materialised (its virtual store names them @horosvec+<key>@<version>)
const installed = (dir) =>
  readdirSync(join(dir, 'node_modules', '.pnpm'))
    .filter((d) => d.startsWith('@horosvec+'))
    .map((d) => d.replace(/^@horosvec\+/, '').replace(/@.*$/, ''))
    .sort();

export default async function installPnpm(ctx) {
  const reg = await registry(ctx);
  const pnpm = join(ctx.root, 'node_modules', '.bin', 'pnpm');
  const store = join(ctx.tmp, 'store');
  const project = async (name, { flags = [], workspace = '' } = {}) => {
    const dir = join(ctx.tmp, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `inst-${name}`, version: '0.0.0', private: true, type: 'module' }));
    writeFileSync(join(dir, '.npmrc'), reg.npmrc);
    if (workspace) writeFileSync(join(dir, 'pnpm-workspace.yaml'), workspace);
    writeFileSync(join(dir, 'probe.mjs'), PROBE);
    await run(pnpm, ['add', 'horosvec', '--ignore-scripts', '--store-dir', store, '--reporter=append-only', ...flags], { cwd: dir, timeoutMs: 180_000 });
    const lock = readFileSync(join(dir, 'pnpm-lock.yaml'), 'utf8');
    if (!lock.includes(reg.integrity)) throw new Error(`${name}: pnpm-lock.yaml does not lock horosvec at the packed tarball's integrity`);
    return dir;
  };

  const key = hostKey();
  const host = await project('host');
  if (installed(host).join() !== key) throw new Error(`pnpm add has @horosvec/{${installed(host)}}, expected ${key} only`);
  const r = probeResult((await run(process.execPath, ['probe.mjs', join(host, 'db')], { cwd: host })).out);
  assertNative(r, 'pnpm add');

  const arch = await project('darwin-arm64', { workspace: 'supportedArchitectures:\n  os: [darwin]\n  cpu: [arm64]\n' });
  if (installed(arch).join() !== 'darwin-arm64') throw new Error(`supportedArchitectures darwin/arm64 has @horosvec/{${installed(arch)}}`);
  const musl = await project('linux-arm64-musl', { flags: ['--os', 'linux', '--cpu', 'arm64', '--libc', 'musl'] });
  if (installed(musl).join() !== 'linux-arm64-musl') throw new Error(`--os linux --cpu arm64 --libc musl has @horosvec/{${installed(musl)}}`);
  return `native (durable reopen ${r.reopened}); supportedArchitectures → darwin-arm64 only; --os/--cpu/--libc → linux-arm64-musl only`;
}
