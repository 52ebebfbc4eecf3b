import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files share the machine's PostgreSQL and Redis; each file owns its own schema/prefix, so files may run in parallel.
    pool: 'forks',
    // Most test time is waiting on sandbox steps, webhooks and the database, not CPU: two files at a time on a
    // 2-core machine halve the wall time (Vitest's default would run one).
    maxWorkers: 2,
  },
});
