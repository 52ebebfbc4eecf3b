import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../../src/clock.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { TEST_PASSWORD_COST, type ScryptCost } from '../../src/domain/passwordHash.ts';
import { createLogger } from '../../src/logger.ts';
import type { BankConnector } from '../../src/rails/BankConnector.ts';
import { createServer, type PayrailServer } from '../../src/server.ts';
import type { Database } from '../../src/store/Database.ts';
import { templatePglite } from './pgliteTemplates.ts';

export type EngineName = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it and fails if it is unreachable). */
export const ENGINES: EngineName[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

/** Long enough for live mode (SECURITY.md: at least 32 characters). */
export const TEST_ADMIN_TOKEN = 'test-admin-token-of-at-least-32-characters';
/** PAYRAIL_MASTER_KEY of test servers in live mode (required there); base64 of 32 bytes. */
export const TEST_MASTER_KEY = Buffer.alloc(32, 7).toString('base64');

export interface TestServer {
  url: string;
  engine: EngineName;
  server: PayrailServer;
  db: Database;
  config: Config;
  /** The PostgreSQL schema of this server (postgres engine); pass it to a second instance on the same database. */
  schema?: string;
  close(): Promise<void>;
}

/** A PostgreSQL schema of its own for one test file, dropped at the end. */
export async function createTestSchema(): Promise<{ schema: string; drop(): Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL as string;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  return {
    schema,
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse the schema of another instance (several instances on one PostgreSQL database). */
  schema?: string;
  /** Reuse an already open database (PGlite shared by two app instances in one process). */
  db?: Database;
  /** Log through this logger instead of one at LOG_LEVEL on stdout (tests that inspect the logs). */
  logger?: Logger;
  /** Replace the bank connector (tests of connector behaviour). */
  rail?: BankConnector;
  /** The server's clock (support/testClock.ts: a test moves it instead of sleeping); default: the system's. */
  clock?: Clock;
  /** Called with the built server before it listens (tests that add Fastify hooks, e.g. the schema drift test). */
  beforeListen?: (server: PayrailServer) => void;
  /**
   * The scrypt cost of operator passwords: TEST_PASSWORD_COST unless given (about 4 ms a hash against about 120 ms;
   * the tests create and sign in hundreds of operators). A test of the stored parameters passes PASSWORD_COST.
   */
  passwordCost?: ScryptCost;
}

/**
 * Starts a real Payrail server on a free loopback port: in-memory PGlite, or a fresh PostgreSQL schema.
 * One server per test file; tests talk to it over real HTTP.
 */
export async function startTestServer(engine: EngineName, options: StartOptions = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'payrail-test-'));
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    PAYRAIL_DATA_DIR: dataDir,
    PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    PAYRAIL_SANDBOX_STEP_MS: '50',
    PAYRAIL_WORKER_POLL_MS: '20',
    PAYRAIL_WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,400ms',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Each server its own Redis namespace unless a test shares one on purpose (several instances).
    PAYRAIL_REDIS_PREFIX: `payrail-test-${randomBytes(4).toString('hex')}:`,
    // Tests send many bad admin credentials from one address on purpose; the throttle is tested where it is the subject.
    PAYRAIL_ADMIN_FAILURES_PER_ADDRESS: '100000',
    ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL as string } : {}),
    ...(options.env?.PAYRAIL_MODE === 'live' ? { PAYRAIL_MASTER_KEY: TEST_MASTER_KEY } : {}),
    ...options.env,
  };
  const config = loadConfig(env);
  let schema = options.schema;
  let dropSchema: (() => Promise<void>) | undefined;
  let db = options.db;
  let ownsDb = false;
  if (engine === 'postgres' && !schema) {
    const created = await createTestSchema();
    schema = created.schema;
    dropSchema = created.drop;
  }
  if (engine === 'pglite' && !db) {
    db = await templatePglite('migrated');
    ownsDb = true;
  }
  const logger = options.logger ?? createLogger(config.logLevel);
  const server = await createServer(config, {
    logger,
    schema,
    db,
    rail: options.rail,
    clock: options.clock,
    passwordCost: options.passwordCost ?? TEST_PASSWORD_COST,
  });
  options.beforeListen?.(server);
  const url = await server.listen();
  return {
    url,
    engine,
    server,
    db: server.db,
    config,
    schema,
    async close() {
      await server.close();
      if (ownsDb) await db?.close();
      await dropSchema?.();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
