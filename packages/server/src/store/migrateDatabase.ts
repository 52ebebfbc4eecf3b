import { join } from 'node:path';
import type { Database } from './Database.ts';
import { lockDataDir } from './dataDirLock.ts';
import { loadMigrations, migrate } from './migrate.ts';
import { createPgDatabase } from './pgDatabase.ts';
import { createPgliteDatabase } from './pgliteDatabase.ts';

export interface MigrationReport {
  applied: string[];
  total: number;
  engine: Database['engine'];
}

/** `payrail migrate`: applies pending migrations to PostgreSQL or the embedded database (under its lock), then closes. */
export async function migrateDatabase(options: { databaseUrl?: string; dataDir: string }): Promise<MigrationReport> {
  const total = (await loadMigrations()).length;
  if (options.databaseUrl) {
    const db = createPgDatabase({ url: options.databaseUrl });
    try {
      return { applied: await migrate(db), total, engine: db.engine };
    } finally {
      await db.close();
    }
  }
  const pgData = join(options.dataDir, 'pgdata');
  const lock = await lockDataDir(options.dataDir, pgData);
  try {
    const db = await createPgliteDatabase(pgData);
    try {
      return { applied: await migrate(db), total, engine: db.engine };
    } finally {
      await db.close();
    }
  } finally {
    await lock.release();
  }
}
