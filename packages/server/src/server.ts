import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { generateSecretToken } from './domain/credentials.ts';
import { buildApp } from './http/app.ts';
import { MemoryCounterStore, RedisCounterStore, type CounterStore } from './http/CounterStore.ts';
import { Metrics } from './http/Metrics.ts';
import { TokenThrottle } from './http/TokenThrottle.ts';
import { CallbackPolicy } from './services/CallbackPolicy.ts';
import { MerchantService } from './services/MerchantService.ts';
import { TokenService } from './services/TokenService.ts';
import type { Database } from './store/Database.ts';
import { openDatabase } from './store/openDatabase.ts';

export interface PayrailServer {
  app: FastifyInstance;
  db: Database;
  config: Config;
  adminToken: string;
  /** True when the admin token was generated (not configured), so the caller may show it. */
  adminTokenGenerated: boolean;
  listen(): Promise<string>;
  close(): Promise<void>;
}

export interface ServerOptions {
  logger: Logger;
  /** PostgreSQL schema to use (tests). */
  schema?: string;
  /** Use this database instead of opening one (tests share one PGlite per file). */
  db?: Database;
}

/** The admin token: configured, or generated once and kept in the data directory. */
async function resolveAdminToken(config: Config): Promise<{ token: string; generated: boolean }> {
  if (config.adminToken) return { token: config.adminToken, generated: false };
  const path = join(config.dataDir, 'admin-token');
  const existing = (await readFile(path, 'utf8').catch(() => '')).trim();
  if (existing) return { token: existing, generated: true };
  await mkdir(config.dataDir, { recursive: true });
  const token = `padm_${generateSecretToken()}`;
  await writeFile(path, `${token}\n`, { mode: 0o600, flag: 'wx' }).catch(async (err) => {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  });
  return { token: (await readFile(path, 'utf8')).trim(), generated: true };
}

/** Composition root: builds the services once and hands them to the HTTP app and the background jobs. */
export async function createServer(config: Config, options: ServerOptions): Promise<PayrailServer> {
  const db = options.db ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: options.schema }));
  const ownsDb = options.db === undefined;
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false }) : null;
  const counters: CounterStore = redis ? new RedisCounterStore(redis) : new MemoryCounterStore();
  const admin = await resolveAdminToken(config);
  const metrics = new Metrics();
  const tokens = await TokenService.create(db, config.tokenTtlSeconds, config.jwtSecret);
  const merchants = new MerchantService(db);
  const callbackPolicy = new CallbackPolicy(config.webhookAllowPrivate);
  const throttle = new TokenThrottle(counters, config.tokenFailuresPerKey, config.tokenFailuresPerAddress);

  const app = await buildApp({
    config,
    logger: options.logger,
    db,
    metrics,
    adminToken: admin.token,
    tokens,
    throttle,
    merchants,
    callbackPolicy,
  });

  let closed = false;
  return {
    app,
    db,
    config,
    adminToken: admin.token,
    adminTokenGenerated: admin.generated,
    listen: () => app.listen({ port: config.port, host: config.host }),
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      redis?.disconnect();
      if (ownsDb) await db.close();
    },
  };
}
