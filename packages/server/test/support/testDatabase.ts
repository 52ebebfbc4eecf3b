import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/store/Database.ts';
import { createPgDatabase } from '../../src/store/pgDatabase.ts';
import { templatePglite } from './pgliteTemplates.ts';
import { createTestSchema, type EngineName } from './testServer.ts';

export interface TestDatabase {
  db: Database;
  schema: string;
  /** Another connection pool on the same schema (postgres: a second instance), or the same database (PGlite). */
  another(): Database;
  close(): Promise<void>;
}

export interface TestDatabases {
  /** A bare, unmigrated database in a schema of its own. */
  fresh(): Promise<TestDatabase>;
  /** Closes what `fresh` opened and is still open. */
  closeAll(): Promise<void>;
}

/**
 * Fresh databases of an engine for store tests. PGlite takes seconds to start, so one in-memory PGlite serves a
 * whole file and each database is a schema of its own in it (PGlite is a single session, so `search_path`
 * holds); PostgreSQL gets a schema per database, dropped on close.
 */
export function testDatabases(engine: EngineName): TestDatabases {
  const open = new Set<TestDatabase>();
  let pglite: Promise<Database> | undefined;

  async function freshPglite(): Promise<TestDatabase> {
    pglite ??= templatePglite('bare');
    const db = await pglite;
    const schema = `t_${randomBytes(6).toString('hex')}`;
    await db.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
    const t: TestDatabase = {
      db,
      schema,
      another: () => db,
      async close() {
        open.delete(t);
        // A test may have closed the database itself; then there is nothing left to drop.
        await db.exec(`DROP SCHEMA ${schema} CASCADE; SET search_path TO public`).catch(() => {});
      },
    };
    return t;
  }

  async function freshPostgres(): Promise<TestDatabase> {
    const url = process.env.TEST_DATABASE_URL as string;
    const { schema, drop } = await createTestSchema();
    const db = createPgDatabase({ url, schema });
    const pools: Database[] = [db];
    const t: TestDatabase = {
      db,
      schema,
      another() {
        const other = createPgDatabase({ url, schema });
        pools.push(other);
        return other;
      },
      async close() {
        open.delete(t);
        // A test may have closed a pool itself (pg refuses to end a pool twice).
        for (const pool of pools) await pool.close().catch(() => {});
        await drop();
      },
    };
    return t;
  }

  return {
    async fresh() {
      const t = engine === 'pglite' ? await freshPglite() : await freshPostgres();
      open.add(t);
      return t;
    },
    async closeAll() {
      for (const t of [...open]) await t.close();
      if (pglite) await (await pglite).close().catch(() => {});
    },
  };
}
