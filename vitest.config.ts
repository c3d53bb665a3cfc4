import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // PostgreSQL and Redis only, run on its own: vitest.cluster.config.ts (npm run test:cluster).
    // Chromium and a studio build: vitest.browser.config.ts (npm run test:studio).
    exclude: [...configDefaults.exclude, 'test/cluster/**', 'test/browser/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
