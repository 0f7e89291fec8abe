// Bun (npm's `bun` package, a root devDependency) as package manager and runtime, from the local
// registry with scripts blocked: `bun add horosvec` gets this host's platform package only and
// the probe, run by Bun, is native with a durable Collection.open reopen; `bun add --os=darwin
// --cpu=arm64` gets @horosvec/darwin-arm64 only and `--os=linux --cpu=arm64 --libc=musl`
// linux-arm64-musl only. Cost: three installs (~1-3 s each) on the shared registry.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostKey, run } from '../project.mjs';
import { PROBE, assertNative, probeResult, registry } from '../registry.mjs';

const installed = (dir) => (existsSync(join(dir, 'node_modules', '@horosvec')) ? readdirSync(join(dir, 'node_modules', '@horosvec')).sort() : []);

export default async function installBun(ctx) {
  const reg = await registry(ctx);
  const bun = join(ctx.root, 'node_modules', '.bin', 'bun');
  const cache = join(ctx.tmp, 'bun-cache');
  const project = async (name, flags = []) => {
    const dir = join(ctx.tmp, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `inst-${name}`, version: '0.0.0', private: true, type: 'module' }));
    writeFileSync(join(dir, 'probe.mjs'), PROBE);
    await run(bun, ['add', 'horosvec', '--ignore-scripts', '--registry', reg.url, '--cache-dir', cache, '--no-progress', ...flags], { cwd: dir, timeoutMs: 180_000 });
    const lock = readFileSync(join(dir, 'bun.lock'), 'utf8');
    if (!lock.includes(reg.integrity)) throw new Error(`${name}: bun.lock does not lock horosvec at the packed tarball's integrity`);
    return dir;
  };

  const key = hostKey();
  const host = await project('host');
  if (installed(host).join() !== key) throw new Error(`bun add has @horosvec/{${installed(host)}}, expected ${key} only`);
  const out = await run(bun, ['probe.mjs', join(host, 'db')], { cwd: host, env: { HOROSVEC_DEBUG: '1' } });
  const r = probeResult(out.out);
  assertNative(r, 'bun probe.mjs');
  if (r.other.join('\n') !== `horosvec: using the native addon (@horosvec/${key})`) throw new Error(`bun: debug output ${JSON.stringify(r.other)}`);

  const darwin = await project('darwin-arm64', ['--os=darwin', '--cpu=arm64']);
  if (installed(darwin).join() !== 'darwin-arm64') throw new Error(`bun add --os=darwin --cpu=arm64 has @horosvec/{${installed(darwin)}}`);
  const musl = await project('linux-arm64-musl', ['--os=linux', '--cpu=arm64', '--libc=musl']);
  if (installed(musl).join() !== 'linux-arm64-musl') throw new Error(`bun add --os=linux --cpu=arm64 --libc=musl has @horosvec/{${installed(musl)}}`);
  const version = (await run(bun, ['--version'], { cwd: ctx.tmp })).out.trim();
  return `bun ${version}: native (durable reopen ${r.reopened}); --os/--cpu → darwin-arm64 only; --libc=musl → linux-arm64-musl only`;
}
