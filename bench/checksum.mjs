#!/usr/bin/env node
// The two snapshot checksums over the same bytes, side by side: CRC-32 (crc32fast: the record
// stream of versions 1–4, segment sections) and xxh3-64 (xxhash-rust: version 5), in the native
// addon and in the wasm build under Node (the bytes already in wasm memory: a SnapshotBuffer, so
// no copy is timed). Medians of --runs alternating calls; one JSONL record on stdout.
//
//   node bench/checksum.mjs [--mb 170] [--runs 7] >> bench-results/checksum/<rev>.jsonl
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { loadWasm } from '../npm/lib/wasm-raw-node.js';
import { provenance, binaryInfo } from './lib/provenance.mjs';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '170' }, runs: { type: 'string', default: '7' } } });
const bytes = Number(values.mb) * 2 ** 20;
const runs = Number(values.runs);
const native = createRequire(import.meta.url)('../npm/native/horosvec.linux-x64-gnu.node');
const wasm = loadWasm();

// pseudo-random bytes (an LCG), the same in both builds
const data = new Uint8Array(bytes);
let s = 12345;
for (let i = 0; i < bytes; i += 4) {
  s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
  data[i] = s & 255;
  data[i + 1] = (s >>> 8) & 255;
  data[i + 2] = (s >>> 16) & 255;
  data[i + 3] = s >>> 24;
}
const buf = wasm.SnapshotBuffer.fill(bytes, (view) => {
  view.set(data);
  return data.length;
});

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (f) => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};
const t = { native_crc32: [], native_xxh3: [], wasm_crc32: [], wasm_xxh3: [] };
for (let r = 0; r < runs; r++) {
  t.native_crc32.push(time(() => native.hashBench(data, true)));
  t.native_xxh3.push(time(() => native.hashBench(data, false)));
  t.wasm_crc32.push(time(() => wasm.hashBench(buf, true)));
  t.wasm_xxh3.push(time(() => wasm.hashBench(buf, false)));
}
const ms = Object.fromEntries(Object.entries(t).map(([k, v]) => [`${k}_ms`, Number(med(v).toFixed(1))]));
const gbs = (m) => Number((bytes / 1e9 / (m / 1000)).toFixed(2));
process.stdout.write(
  `${JSON.stringify({
    bench: 'checksum',
    bytes,
    runs,
    ...ms,
    native_crc32_gb_s: gbs(ms.native_crc32_ms),
    native_xxh3_gb_s: gbs(ms.native_xxh3_ms),
    wasm_crc32_gb_s: gbs(ms.wasm_crc32_ms),
    wasm_xxh3_gb_s: gbs(ms.wasm_xxh3_ms),
    wasm_crc32_over_xxh3: Number((ms.wasm_crc32_ms / ms.wasm_xxh3_ms).toFixed(2)),
    native_kernel: native.kernel(),
    wasm_kernel: wasm.kernel(),
    ...binaryInfo('native'),
    ...provenance(),
  })}\n`,
);
