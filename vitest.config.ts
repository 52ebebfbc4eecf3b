import { defineConfig } from 'vitest/config';

// Tests run the TypeScript sources: the "@payrail/source" export condition of each package points at src/index.ts,
// so no build is needed (published consumers never set it and get dist/).
const conditions = ['@payrail/source', 'module', 'node', 'development|production'];
const vite = { resolve: { conditions }, ssr: { resolve: { conditions, externalConditions: ['@payrail/source'] } } };

const ALL = ['packages/*/test/**/*.test.ts'];

/**
 * Test files run one after another in a reused worker (isolate: false) instead of a new process each: every file
 * re-imported the server, fastify, pg and PGlite's WebAssembly (1.5-4 s a file at load), and in a reused worker the
 * server's compiled route schemas are reused too (src/http/compiledSchemas.ts). These start their servers, databases,
 * browsers and child processes through test/support, close them in afterAll and leave no process-wide state behind
 * (the two that fake Date restore it in afterAll); all of them pass run that way
 * (`npx vitest run --no-isolate <these folders>`; the browser, e2e, concurrency, failover, ops and top-level server
 * files were checked so last, 36 files). A new test file must close what it opens and restore what it changes in
 * the process.
 */
/**
 * Kept to a fresh process: the heap-growth test (nothing of an earlier file in the heap), and the
 * SDK's packaging test (packs, installs and runs the SDK and the server the way a user does).
 */
const ISOLATED_HERE = ['packages/server/test/http/tokenBounds.test.ts', 'packages/sdk/test/packaging.test.ts'];

const common = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // Files share the machine's PostgreSQL and Redis; each file owns its own schema/prefix, so files may run in parallel.
  pool: 'forks' as const,
};

export default defineConfig({
  ...vite,
  test: {
    // Here, not in the projects, so that it runs once: builds the packages and saves PGlite clusters once, so that each
    // file's in-memory PGlite loads one instead of running initdb.
    globalSetup: ['packages/server/test/globalSetup.ts'],
    pool: 'forks',
    // Most test time is waiting on sandbox steps, webhooks and the database, not CPU: two files at a time on a
    // 2-core machine halve the wall time (Vitest's default would run one). Three measured no faster.
    maxWorkers: 2,
    projects: [
      { ...vite, test: { ...common, name: 'shared', include: ALL, exclude: ISOLATED_HERE, isolate: false } },
      { ...vite, test: { ...common, name: 'isolated-here', include: ISOLATED_HERE } },
    ],
  },
});
