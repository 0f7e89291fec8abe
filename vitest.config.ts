import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests-js/**/*.test.ts'],
    exclude: ['tests-js/browser/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
