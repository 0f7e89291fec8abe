// Vite config of the semantic-search page (root: this folder; public/ is prepared by
// scripts/prepare-model.sh and build-snapshot.mjs). `npm run demo:web` and the e2e test serve
// the production build (`vite build` → dist/, then `vite preview`): bundled and minified
// modules, the .wasm files as hashed assets with the application/wasm type (streaming
// compilation), hashed assets cached as immutable. `vite` (the dev server) still works for
// editing the page.
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));

// The preview server's headers. Types: the snapshot and the model are binary (without a type,
// `vite preview` gzips them on every request, as text: seconds for these 45 MB). Caching: the
// big binaries (the snapshot, the model, and the .wasm assets: onnxruntime's 14 MB and
// horosvec's) are not stored in the HTTP cache at all (`no-store`, or
// $SEMANTIC_SEARCH_BINARY_CACHE, read on each request): on a first visit, writing their 60 MB
// to the browser's disk cache took CPU from the page's workers (measured with
// bench/page-open.mjs: median CPU until the first result 0.2 s lower without the model's and the
// snapshot's write, 0.4 s lower again without the .wasm files'; page open → first result 0.3 s
// and 0.6 s lower), and repeat visits were not slower (a localhost fetch costs about what
// reading the disk cache and revalidating does). The other hashed build assets never change
// under their name; index.html and the JSON model files are revalidated.
const BINARY = /\.(hvsnap|onnx)$/;
const NO_STORE = /\.(hvsnap|onnx|wasm)$/;
const headers = () => ({
  name: 'semantic-search-headers',
  configurePreviewServer(server) {
    server.middlewares.use((req, res, next) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (BINARY.test(path)) res.setHeader('content-type', 'application/octet-stream');
      const binaryCache = process.env.SEMANTIC_SEARCH_BINARY_CACHE || 'no-store';
      res.setHeader('cache-control', NO_STORE.test(path) ? binaryCache : path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      next();
    });
  },
});

export default {
  root: fileURLToPath(new URL('.', import.meta.url)),
  server: { host: '127.0.0.1', fs: { allow: [repo] } },
  preview: { host: '127.0.0.1' },
  worker: { format: 'es' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // the model, onnxruntime's wasm and the snapshot are big on purpose
    chunkSizeWarningLimit: 4096,
    reportCompressedSize: false,
  },
  plugins: [headers()],
  // The page runs the model on the wasm backend only: onnxruntime-web's wasm bundle (its plain
  // 14 MB simd-threaded .wasm) instead of the WebGPU one transformers.js imports (whose .asyncify
  // .wasm is 27 MB: twice the bytes to fetch and compile before the first embedding).
  resolve: { alias: { 'onnxruntime-web/webgpu': 'onnxruntime-web/wasm' } },
  // horosvec loads its .wasm relative to its own module: serve it unbundled (dev server).
  optimizeDeps: { exclude: ['horosvec', '@huggingface/transformers'] },
  logLevel: 'info',
};
