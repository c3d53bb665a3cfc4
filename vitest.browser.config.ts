import { defineConfig } from 'vitest/config';

/**
 * The Sanity Studio browser tests (test/browser): the built studio/ (or STUDIO_VERSION's folder of
 * studio/versions/) in Debian's Chromium against a real `cms serve` over HTTPS and HTTP/2. They need
 * Chromium and a studio build, so `npm test` leaves them out and `npm run test:studio` (a step of
 * .ci/run) runs them on their own.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    // Each file is a journey whose steps run in order (each starts its own service and Chromium):
    // never two files at once.
    fileParallelism: false,
    testTimeout: 120_000,
    // Building the studio when it was not built yet takes a minute or two.
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
