import { defineConfig } from 'vitest/config';

// Tests run the TypeScript sources: the "@payrail/source" export condition of each package points at src/index.ts,
// so no build is needed (published consumers never set it and get dist/).
const conditions = ['@payrail/source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@payrail/source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    // Saves PGlite clusters once, so that each file's in-memory PGlite loads one instead of running initdb.
    globalSetup: ['packages/server/test/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files share the machine's PostgreSQL and Redis; each file owns its own schema/prefix, so files may run in parallel.
    pool: 'forks',
    // Most test time is waiting on sandbox steps, webhooks and the database, not CPU: two files at a time on a
    // 2-core machine halve the wall time (Vitest's default would run one).
    maxWorkers: 2,
  },
});
