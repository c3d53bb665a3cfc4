import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // PostgreSQL and Redis only, run on its own: vitest.cluster.config.ts (npm run test:cluster).
    exclude: [...configDefaults.exclude, 'test/cluster/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
