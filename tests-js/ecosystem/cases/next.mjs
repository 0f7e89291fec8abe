// Next.js 16 (App Router), no next.config: a route handler on the native addon and a client
// component on wasm, built with Turbopack (the default) and with webpack (`next build
// --webpack`), each served by `next start`; no `.node` file or addon name in .next/static, and
// no serverExternalPackages needed. The project lives under target/ (gitignored) without a
// lockfile of its own, so Next resolves next/react/react-dom from the workspace's node_modules
// as in a hoisted monorepo (Turbopack refuses packages outside its root, and the root is the
// directory of the nearest lockfile); horosvec comes from the tarballs into the project's own
// node_modules. Cost: one install, two builds (~15 s each), two servers, two pages.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { assertNoAddon, filesUnder, freePort, freshProject, pageResult, run, start } from '../project.mjs';

const FILES = {
  'app/layout.js': `export default function RootLayout({ children }) {
  return <html><body>{children}</body></html>;
}
`,
  'app/page.js': `import Search from './search.js';
export default function Page() {
  return <main><Search /></main>;
}
`,
  'app/search.js': `'use client';
import { useEffect } from 'react';
import { Collection, backend, kernel } from 'horosvec';
export default function Search() {
  useEffect(() => {
    (async () => {
      const c = Collection.create({ dim: 3, metric: 'cosine' });
      await c.add(['cat', 'dog', 'car'], [[1, 0, 0], [0.9, 0.1, 0], [0, 0, 1]]);
      const hits = await c.search([1, 0.05, 0], { k: 2 });
      window.__result = { backend, kernel, ids: hits.map((h) => h.id) };
    })().catch((e) => { window.__result = { error: String(e && e.message) }; });
  }, []);
  return <p>search</p>;
}
`,
  'app/api/search/route.js': `import { Collection, backend } from 'horosvec';
export async function GET() {
  const c = Collection.create({ dim: 2 });
  await c.add(['a', 'b'], [[0, 1], [1, 0]]);
  const h = await c.search([0.9, 0.1], { k: 1 });
  return Response.json({ backend, id: h[0].id, reason: c.stats().backendReason ?? null });
}
`,
};

export default async function next(ctx) {
  const dir = join(ctx.root, 'target', 'ecosystem', `next-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  try {
    await freshProject(ctx, { dir, files: FILES });
    rmSync(join(dir, 'package-lock.json'), { force: true });
    const bin = join(ctx.root, 'node_modules', 'next', 'dist', 'bin', 'next');
    const env = { NEXT_TELEMETRY_DISABLED: '1' };
    const notes = [];
    for (const [name, flags] of [['turbopack', []], ['webpack', ['--webpack']]]) {
      rmSync(join(dir, '.next'), { recursive: true, force: true });
      const built = await run(process.execPath, [bin, 'build', ...flags], { cwd: dir, env, timeoutMs: 240_000 });
      // Next's webpack config targets ES2015, so webpack flags browser.js's top-level await (the
      // page runs; README: horosvec/inline avoids it); under CI (the CI variable set) Next warns
      // that .next/cache is absent, which it always is here; any other warning fails the case
      const tla = /using "topLevelAwait"[\s\S]*?horosvec\/browser\.js/.test(built.out);
      const rest = built.out.replace(/⚠ No build cache found\.[^\n]*\n/, '').replace(/⚠ Compiled with warnings[^\n]*\n/, '').replace(/\n\.\/node_modules\/horosvec\/browser\.js\nThe generated code contains 'async\/await'[\s\S]*?\.\/app\/search\.js\n/, '\n');
      if (/serverExternalPackages|Module not found|⚠|[Ww]arning/.test(rest)) throw new Error(`next build (${name}) warned:\n${built.out.slice(-3000)}`);
      assertNoAddon(join(dir, '.next', 'static'), `next build (${name}): .next/static`);
      const wasm = filesUnder(join(dir, '.next', 'static'), (f) => f.endsWith('.wasm')).length;
      const port = await freePort();
      const server = await start(process.execPath, [bin, 'start', '-p', String(port), '-H', '127.0.0.1'], { cwd: dir, env, ready: /Ready in|started server/i });
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/search`);
        const route = await res.json();
        if (route.backend !== 'native' || route.id !== 'b') throw new Error(`${name}: route handler answered ${JSON.stringify(route)}`);
        const page = await pageResult(ctx, `http://127.0.0.1:${port}/`);
        if (page.result?.backend !== 'wasm' || page.result?.ids?.join() !== 'cat,dog' || page.errors.length) {
          throw new Error(`${name}: client component gave ${JSON.stringify(page.result)}, errors ${JSON.stringify(page.errors)}`);
        }
        notes.push(`${name}: route native, client ${page.result.backend}/${page.result.kernel} (${wasm} .wasm in static${tla ? ', top-level-await warning' : ''})`);
      } finally {
        await server.stop();
      }
    }
    return notes.join('; ');
  } finally {
    if (existsSync(dir) && !process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  }
}
