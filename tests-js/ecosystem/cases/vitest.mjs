// vitest 4, zero config, in the pools threads, forks and vmThreads: a test file importing
// horosvec (native), horosvec/wasm and horosvec/inline from the installed tarball. vitest is the
// workspace's, symlinked into the project (the test file imports it). Cost: one install, three
// vitest runs (~3 s each).
import { freshProject, tool } from '../project.mjs';

const TEST = `import { expect, test } from 'vitest';
import { createRequire } from 'node:module';
import { realpathSync } from 'node:fs';
import * as native from 'horosvec';
import * as wasm from 'horosvec/wasm';
import * as inline from 'horosvec/inline';

test('horosvec comes from this project', () => {
  const pkg = realpathSync(createRequire(import.meta.url).resolve('horosvec/package.json'));
  expect(pkg.startsWith(realpathSync(process.cwd()))).toBe(true);
});

for (const [name, m, backend] of [['horosvec', native, 'native'], ['horosvec/wasm', wasm, 'wasm'], ['horosvec/inline', inline, 'wasm']]) {
  test(name + ' searches on ' + backend, async () => {
    expect(m.backend).toBe(backend);
    const c = m.Collection.create({ dim: 2 });
    await c.add(['a', 'b'], [[0, 1], [1, 0]]);
    expect((await c.search([0.9, 0.1], { k: 1 }))[0].id).toBe('b');
    c.close();
  });
}
`;

export default async function vitest(ctx) {
  const dir = await freshProject(ctx, { files: { 'horosvec.test.js': TEST }, link: ['vitest'] });
  const notes = [];
  const runPool = (pool) => tool(ctx, 'vitest/vitest.mjs', ['run', `--pool=${pool}`], { cwd: dir, env: { HOROSVEC_FORCE_WASM: '', CI: '1' } });
  for (const pool of ['threads', 'forks', 'vmThreads']) {
    let out;
    let note = '';
    try {
      ({ out } = await runPool(pool));
    } catch (e) {
      // KNOWN, NOT FIXED (seen once in ~6 fresh-clone runs, 2026-12-02): the vmThreads worker died
      // of "illegal access" thrown from a FinalizationRegistry cleanup task (V8's
      // InvokeFinalizationRegistryCleanupFromTask) on Node 20. It is retried once and the line
      // says so, so the flake stays visible in every report instead of turning CI red at random.
      // What is known (Node v20.20.2, vitest 4.1.12): "illegal access" is the bare string V8's
      // Isolate::ThrowIllegalOperation throws (not an Error), e.g. when script execution in the
      // target context has been aborted, here the context the registry was made in. The only
      // FinalizationRegistry of the package is wasm-bindgen's (npm/wasm/horosvec_wasm.js,
      // `ptr => wasm.__wbg_corecollection_free(ptr, 1)`, one per raw CoreCollection; close()
      // does not unregister it); napi-rs uses napi_wrap finalizers, and vitest 4's dist has none.
      // Not reproduced: 65 runs of this case's vmThreads run on the installed project, and 30 of
      // a stress project (6 files × horosvec, horosvec/wasm, horosvec/inline × 500 collections,
      // half never closed, 50 left live at teardown, global.gc() via v8.setFlagsFromString +
      // vm.runInNewContext('gc')), on a loaded 2-core machine: 0 crashes.
      if (pool !== 'vmThreads' || !/illegal access/.test(String(e.message))) throw e;
      ({ out } = await runPool(pool));
      note = ' (after one crash: "illegal access" in a FinalizationRegistry cleanup, known flake)';
    }
    const m = /Tests\s+(?:\x1b\[[0-9;]*m)*\s*(\d+) passed/.exec(out.replace(/\x1b\[[0-9;]*m/g, ''));
    if (!m || m[1] !== '4') throw new Error(`vitest --pool=${pool}:\n${out.slice(-2000)}`);
    notes.push(`${pool} 4/4${note}`);
  }
  return notes.join(', ');
}
