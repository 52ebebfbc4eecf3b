import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Database } from './Database.ts';
import { lockDataDir } from './dataDirLock.ts';
import { migrate } from './migrate.ts';
import { createPgDatabase } from './pgDatabase.ts';
import { ensurePgliteCluster } from './pgliteDatabase.ts';
import { createPgliteWorkerDatabase } from './pgliteWorkerDatabase.ts';

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  /** PostgreSQL schema (tests); ignored for PGlite. */
  schema?: string;
  /** PostgreSQL: connection wait and statement time limits (pgDatabase.ts); ignored for PGlite. */
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  /** PostgreSQL: named prepared statements (pgDatabase.ts); ignored for PGlite. */
  preparedStatements?: boolean;
  /** PostgreSQL: where lost connections are reported (pgDatabase.ts); ignored for PGlite. */
  logger?: Pick<Logger, 'warn'>;
}

/** Opens PostgreSQL when a URL is given, else embedded PGlite in `<dataDir>/pgdata`, and migrates it. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const db = createPgDatabase({
      url: options.databaseUrl,
      schema: options.schema,
      connectTimeoutMs: options.connectTimeoutMs,
      statementTimeoutMs: options.statementTimeoutMs,
      preparedStatements: options.preparedStatements,
      logger: options.logger,
    });
    await migrate(db);
    return db;
  }
  const pgData = join(options.dataDir, 'pgdata');
  const lock = await lockDataDir(options.dataDir, pgData);
  try {
    // The server's database runs in a thread of its own (pgliteWorkerDatabase.ts); tests and `payrail migrate` open
    // PGlite in process through createPgliteDatabase.
    await ensurePgliteCluster(pgData);
    const db = await createPgliteWorkerDatabase(pgData);
    await migrate(db);
    return {
      ...db,
      close: async () => {
        try {
          await db.close();
        } finally {
          await lock.release();
        }
      },
    };
  } catch (err) {
    await lock.release();
    throw err;
  }
}
