import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';

// Browser-mode tests: `horosvec` resolves through the `browser` condition to the wasm build,
// in Debian's headless Chromium (never a downloaded browser).
export default defineConfig({
  test: {
    include: ['tests-js/browser/**/*.browser.test.ts'],
    testTimeout: 60_000,
    browser: {
      enabled: true,
      headless: true,
      provider: playwright({
        launchOptions: {
          executablePath: process.env.HOROSVEC_CHROMIUM ?? '/usr/bin/chromium',
          args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
            '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        },
      }),
      instances: [{ browser: 'chromium' }],
    },
  },
});
