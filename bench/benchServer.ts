import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildServer, freePort, spawnServer, stopChild, waitHealthy, type Child } from './common.ts';

/** The application_name of one process's PostgreSQL connections (bench/run.ts reads their backends' CPU by it). */
export const appName = (label: string) => `payrail-bench-${label}`;

async function adminSql(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** `url` with its connections named appName(label). */
function named(url: string, label: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', appName(label));
  return u.toString();
}

/**
 * A fresh place for one process's database: a schema of the PostgreSQL at `databaseUrl` (its URL, with that
 * search_path and `appName(label)`), else a temporary directory for PGlite. `cleanups` gets what removes it.
 */
export async function freshStorage(
  engine: 'pglite' | 'postgres',
  label: string,
  cleanups: (() => Promise<unknown>)[],
  databaseUrl?: string,
): Promise<string> {
  if (engine === 'postgres') {
    const root = databaseUrl as string;
    const schema = `bench_${label}_${randomBytes(4).toString('hex')}`;
    await adminSql(root, `CREATE SCHEMA ${schema}`);
    cleanups.push(() => adminSql(root, `DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    const u = new URL(root);
    u.searchParams.set('options', `-c search_path=${schema}`);
    return named(u.toString(), label);
  }
  const dir = await mkdtemp(join(tmpdir(), `payrail-bench-${label}-`));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export interface BenchServer {
  url: string;
  child: Child;
  /** Stops the server and removes its storage (schema or directory). */
  stop(): Promise<void>;
}

/**
 * A Payrail server of its own for one bench scenario: PGlite in a temporary directory, or a fresh schema of the
 * PostgreSQL at `databaseUrl`; or, with `existing` (PostgreSQL: a URL whose search_path holds Payrail's tables), that
 * database, which its start migrates and which is never dropped. `settings` are its PAYRAIL_* variables beside the
 * bench's defaults. Its connections are named appName('srv') either way (bench/run.ts and bench/drain.ts read their
 * backends' CPU by it).
 */
export async function startBenchServer(
  engine: 'pglite' | 'postgres',
  o: {
    databaseUrl?: string;
    existing?: string;
    env: NodeJS.ProcessEnv;
    adminToken: string;
    settings?: Record<string, string>;
  },
): Promise<BenchServer> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanup = async () => {
    for (const step of cleanups) await step().catch(() => undefined);
  };
  try {
    const place = o.existing ? named(o.existing, 'srv') : await freshStorage(engine, 'srv', cleanups, o.databaseUrl);
    const storage = engine === 'postgres' ? { DATABASE_URL: place } : { PAYRAIL_DATA_DIR: place };
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
