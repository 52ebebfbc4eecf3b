import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createServer } from '../../src/server.ts';
import type { Database } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createPgliteDatabase } from '../../src/store/pgliteDatabase.ts';
import { createTestSchema, ENGINES, TEST_ADMIN_TOKEN, TEST_MASTER_KEY } from '../support/testServer.ts';

/** Issue 10, finding 13: a database used as a sandbox does not start live unless the operator says so. */
describe.each(ENGINES)('live start on a sandbox database (%s)', (engine) => {
  let dataDir: string;
  let db: Database | undefined;
  let schema: { schema: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payrail-mode-'));
    if (engine === 'pglite') {
      db = await createPgliteDatabase(undefined);
      await migrate(db);
    } else {
      schema = await createTestSchema();
    }
  });
  afterAll(async () => {
    await db?.close();
    await schema?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Creates (without listening) and closes a server in `mode` on the shared database. */
  async function start(mode: 'sandbox' | 'live', extra: Record<string, string> = {}) {
    const config = loadConfig({
      PAYRAIL_MODE: mode,
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      PAYRAIL_MASTER_KEY: TEST_MASTER_KEY,
      ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL as string } : {}),
      ...extra,
    });
    const server = await createServer(config, { logger: createLogger('silent'), db, schema: schema?.schema });
    await server.close();
  }

  it('a fresh database starts live; once live, a sandbox start marks it and live is refused again', async () => {
    await start('live');
    await start('live');
    await start('sandbox');
    await expect(start('live')).rejects.toThrow(/used in sandbox mode.*PAYRAIL_ALLOW_SANDBOX_DATA_IN_LIVE=true/s);
  });

  it('the operator accepts once with PAYRAIL_ALLOW_SANDBOX_DATA_IN_LIVE=true; a later sandbox use needs it again', async () => {
    await start('live', { PAYRAIL_ALLOW_SANDBOX_DATA_IN_LIVE: 'true' });
    await start('live');
    await new Promise((r) => setTimeout(r, 5));
    await start('sandbox');
    await expect(start('live')).rejects.toThrow(/used in sandbox mode/);
  });
});
