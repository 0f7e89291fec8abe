// The semantic-search page (examples/semantic-search) served for the page benchmarks
// (bench/page-open.mjs, bench/page-trace.mjs), as in its e2e test: the locally prepared model
// (scripts/prepare-model.sh) and snapshot (build-snapshot.mjs), the production build (vite build)
// served by `vite preview` on 127.0.0.1. Also the benchmarks' query: the sample's first query text
// of 25 to 70 characters (the e2e's first one).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { build, preview } from 'vite';
import { loadSample } from '../../examples/lib/sample.mjs';
import { buildSnapshot } from '../../examples/semantic-search/build-snapshot.mjs';
import { ROOT } from './provenance.mjs';

/** Prepares, builds and serves the page: `{ url, query, server }` (`server.close()` stops it). */
export async function servePage() {
  execFileSync('bash', [join(ROOT, 'scripts/prepare-model.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  await buildSnapshot();
  const query = loadSample().queries.find((q) => q.text.length >= 25 && q.text.length <= 70).text;
  const configFile = join(ROOT, 'examples/semantic-search/vite.config.mjs');
  await build({ configFile, logLevel: 'warn' });
  const server = await preview({ configFile, preview: { port: 0, strictPort: false }, logLevel: 'warn' });
  return { url: `http://127.0.0.1:${server.httpServer.address().port}/`, query, server };
}
