import { defineConfig } from 'vitest/config';

/**
 * The cluster test (test/cluster): real `cms serve` processes on PostgreSQL and Redis. It needs both
 * (TEST_DATABASE_URL, REDIS_TEST_URL; local defaults otherwise), so `npm test` leaves it out and
 * `npm run test:cluster` (a step of .ci/run) runs it on its own.
 */
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 90_000,
    pool: 'forks',
  },
});
