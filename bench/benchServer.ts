import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildServer, freePort, spawnServer, stopChild, waitHealthy, type Child } from './common.ts';

export interface BenchServer {
  url: string;
  child: Child;
  /** Stops the server and removes its storage (schema or directory). */
  stop(): Promise<void>;
}

/**
 * A Payrail server of its own for one bench scenario: PGlite in a temporary directory, or a fresh schema of the
 * PostgreSQL at `databaseUrl`. `settings` are its PAYRAIL_* variables beside the bench's defaults.
 */
export async function startBenchServer(
  engine: 'pglite' | 'postgres',
  o: { databaseUrl?: string; env: NodeJS.ProcessEnv; adminToken: string; settings?: Record<string, string> },
): Promise<BenchServer> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanup = async () => {
    for (const step of cleanups) await step().catch(() => undefined);
  };
  try {
    const storage: Record<string, string> = {};
    if (engine === 'postgres') {
      const schema = `bench_${randomBytes(5).toString('hex')}`;
      const sql = async (text: string) => {
        const c = new pg.Client({ connectionString: o.databaseUrl });
        await c.connect();
        await c.query(text).finally(() => c.end());
      };
      await sql(`CREATE SCHEMA ${schema}`);
      cleanups.push(() => sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
      const u = new URL(o.databaseUrl as string);
      u.searchParams.set('options', `-c search_path=${schema}`);
      u.searchParams.set('application_name', 'payrail-server');
      storage.DATABASE_URL = u.toString();
    } else {
      const dir = await mkdtemp(join(tmpdir(), 'payrail-bench-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      storage.PAYRAIL_DATA_DIR = dir;
    }
    const port = await freePort();
    await buildServer();
    const child = spawnServer(
      {
        ...o.env,
        ...storage,
        PORT: String(port),
        HOST: '127.0.0.1',
        PAYRAIL_ADMIN_TOKEN: o.adminToken,
        LOG_LEVEL: 'warn',
        PAYRAIL_RATE_LIMIT_PER_MINUTE: '1000000000',
        PAYRAIL_SANDBOX_STEP_MS: '3600000',
        ...o.settings,
      },
      (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    );
    cleanups.unshift(() => stopChild(child));
    const url = `http://127.0.0.1:${port}`;
    await waitHealthy(`${url}/healthz`, child);
    return { url, child, stop: cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
