// Vite config of the semantic-search page (root: this folder; public/ is prepared by
// scripts/prepare-model.sh and build-snapshot.mjs).
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));
export default {
  root: fileURLToPath(new URL('.', import.meta.url)),
  server: { host: '127.0.0.1', fs: { allow: [repo] } },
  worker: { format: 'es' },
  // horosvec loads its .wasm relative to its own module: serve it unbundled.
  optimizeDeps: { exclude: ['horosvec', '@huggingface/transformers'] },
  logLevel: 'info',
};
