import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files share the machine's PostgreSQL and Redis; each file owns its own schema/prefix, so files may run in parallel.
    pool: 'forks',
  },
});
