import { defineConfig } from 'vitest/config';

/**
 * The Sanity Studio browser test (test/browser): the built studio/ in Debian's Chromium against a
 * real `cms serve` over HTTPS and HTTP/2. It needs Chromium and a studio build, so `npm test`
 * leaves it out and `npm run test:studio` (a step of .ci/run) runs it on its own.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    // One editor's journey, step by step: the steps run in order, and never two files at once.
    fileParallelism: false,
    testTimeout: 120_000,
    // Building the studio when it was not built yet takes a minute or two.
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
