// End-to-end: the example page in headless Chromium (Debian's /usr/bin/chromium driven by
// playwright-core), loading the package's browser entry and its .wasm over HTTP.
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './serve.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const server = await serve(root);
const { port } = server.address();
const profile = await mkdtemp(join(tmpdir(), 'horosvec-e2e-'));
let passed = 0, failed = 0;
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.HOROSVEC_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${port}/examples/web/index.html`);
  await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30_000 });
  const r = await page.evaluate(() => window.__result);
  const ok = r.backend === 'wasm' && r.kernel === 'wasm-simd128' && r.size === 4 && r.ids.join() === 'cat,dog,car' && errors.length === 0;
  await page.screenshot({ path: join(root, 'target', 'e2e-web.png') }).catch(() => {});
  if (ok) passed++;
  else {
    failed++;
    console.error('e2e: unexpected result', JSON.stringify(r), errors);
  }
} catch (e) {
  failed++;
  console.error('e2e:', e);
} finally {
  await ctx.close();
  server.close();
  await rm(profile, { recursive: true, force: true });
}
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
