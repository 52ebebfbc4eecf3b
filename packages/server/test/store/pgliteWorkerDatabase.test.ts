import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/Database.ts';
import { isUniqueViolation } from '../../src/store/dbErrors.ts';
import { migrate } from '../../src/store/migrate.ts';
import { ensurePgliteCluster } from '../../src/store/pgliteDatabase.ts';
import { createPgliteWorkerDatabase } from '../../src/store/pgliteWorkerDatabase.ts';

/**
 * PGlite in its own thread (what `npm start` runs on a data directory) keeps the in-process semantics the store
 * relies on: bigints, errors with their codes and constraints, transactions that commit or roll back whole, and
 * statements outside a transaction that wait for it.
 */
describe('PGlite in a worker thread', () => {
  let dir: string;
  let db: Database;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-pglite-thread-'));
    await ensurePgliteCluster(join(dir, 'pgdata'));
    db = await createPgliteWorkerDatabase(join(dir, 'pgdata'));
    await migrate(db);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers int8 as bigint and timestamps as dates', async () => {
    const { rows } = await db.query<{ n: bigint; t: Date }>('SELECT $1::int8 AS n, now() AS t', [2n ** 62n]);
    expect(rows[0]?.n).toBe(2n ** 62n);
    expect(rows[0]?.t).toBeInstanceOf(Date);
  });

  it('passes errors on with their code and constraint', async () => {
    await db.query("INSERT INTO settings (key, value) VALUES ('w1', 'a')");
    const err = await db.query("INSERT INTO settings (key, value) VALUES ('w1', 'b')").catch((e: unknown) => e);
    expect(isUniqueViolation(err, 'settings_pkey')).toBe(true);
  });

  it('commits a transaction whole, rolls a failed one back whole, and makes outside statements wait', async () => {
    const committed = await db.transaction(async (tx) => {
      await tx.query("INSERT INTO settings (key, value) VALUES ('w2', 'a')");
      return (await tx.query<{ value: string }>("SELECT value FROM settings WHERE key = 'w2'")).rows[0]?.value;
    });
    expect(committed).toBe('a');
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO settings (key, value) VALUES ('w3', 'a')");
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const open = db.transaction(async (tx) => {
      await tx.query("UPDATE settings SET value = 'x' WHERE key = 'w2'");
      await new Promise((r) => setTimeout(r, 50));
      await tx.query("UPDATE settings SET value = 'y' WHERE key = 'w2'");
    });
    const outside = db.query<{ value: string }>("SELECT value FROM settings WHERE key = 'w2'");
    await open;
    expect((await outside).rows[0]?.value).toBe('y');
    const { rows } = await db.query<{ n: bigint }>("SELECT count(*) AS n FROM settings WHERE key IN ('w2', 'w3')");
    expect(rows[0]?.n).toBe(1n);
  });
});
