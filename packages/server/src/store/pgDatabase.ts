import pg from 'pg';
import type { Database, Queryable, QueryResult } from './Database.ts';

const INT8_OID = 20;

export interface PgOptions {
  url: string;
  /** Schema to work in (tests isolate themselves this way); defaults to the server's search_path. */
  schema?: string;
  maxConnections?: number;
}

/** PostgreSQL through a `pg` pool; several Payrail instances may share one database. */
export function createPgDatabase(options: PgOptions): Database {
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format ?? 'text'),
  };
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 20,
    types: types as pg.CustomTypesConfig,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});

  const run = async <R>(client: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]) => {
    const result = await client.query(sql, params as unknown[] | undefined);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 } satisfies QueryResult<R>;
  };

  return {
    engine: 'postgres',
    query: (sql, params) => run(pool, sql, params),
    exec: async (sql) => {
      await pool.query(sql);
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const tx: Queryable = {
          query: (sql, params) => run(client, sql, params),
          exec: async (sql) => {
            await client.query(sql);
          },
        };
        const result = await fn(tx);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
