import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Queryable, QueryResult } from './Database.ts';

const INT8_OID = 20;

interface PgliteResults {
  rows: unknown[];
  affectedRows?: number;
}

function toResult<R>(result: PgliteResults): QueryResult<R> {
  return { rows: result.rows as R[], rowCount: result.affectedRows || result.rows.length };
}

/**
 * Embedded PostgreSQL (WASM) in a directory, or in memory when `dataDir` is undefined. PGlite is a single
 * connection that serialises transactions itself, which is what keeps the same SQL correct on it.
 */
export async function createPgliteDatabase(dataDir: string | undefined): Promise<Database> {
  if (dataDir !== undefined && !existsSync(join(dataDir, 'PG_VERSION'))) {
    // A new directory: PGlite runs initdb in this process, and the instance that did so keeps initdb's
    // WebAssembly memory (about 450 MB resident) for as long as it lives. Create the cluster, close it, and open
    // it again, so that the process keeps only what a running database needs.
    await (await PGlite.create(dataDir)).close();
  }
  const db = await PGlite.create(dataDir ?? 'memory://', {
    parsers: { [INT8_OID]: (value: string) => BigInt(value) },
  });
  return {
    engine: 'pglite',
    query: async (sql, params) => toResult(await db.query(sql, params as unknown[] | undefined)),
    exec: async (sql) => {
      await db.exec(sql);
    },
    transaction: (fn) =>
      db.transaction(async (t) => {
        const tx: Queryable = {
          query: async (sql, params) => toResult(await t.query(sql, params as unknown[] | undefined)),
          exec: async (sql) => {
            await t.exec(sql);
          },
        };
        return fn(tx);
      }),
    close: () => db.close(),
  };
}
