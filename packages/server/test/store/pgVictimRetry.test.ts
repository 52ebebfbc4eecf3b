import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import type { Database, Queryable } from '../../src/store/Database.ts';
import { createPgDatabase, MAX_VICTIM_ATTEMPTS } from '../../src/store/pgDatabase.ts';
import { createTestSchema } from '../support/testServer.ts';

/**
 * A transaction PostgreSQL rolls back as a deadlock (40P01) or serialization (40001) victim runs again, whole, at
 * most MAX_VICTIM_ATTEMPTS times, each retry logged with its SQLSTATE and nothing of the statements
 * (store/pgDatabase.ts, ARCHITECTURE.md "Row locks, in one order"); other errors are not retried. PostgreSQL only:
 * PGlite has one connection, and no victims.
 */

if (!process.env.TEST_DATABASE_URL && !process.env.CI) {
  console.warn('pgVictimRetry.test.ts skipped: set TEST_DATABASE_URL (PostgreSQL) to run it');
}

describe.runIf(!process.env.TEST_DATABASE_URL && process.env.CI)('victim retry on PostgreSQL (CI)', () => {
  it('needs PostgreSQL', () => {
    expect.fail('CI=1 but TEST_DATABASE_URL is not set: .ci/run starts PostgreSQL and sets it');
  });
});

/** A statement PostgreSQL fails with `state`, as it fails a victim (a secret in it must never reach the log). */
const failWith = (state: string) =>
  `DO $$ BEGIN RAISE EXCEPTION 'victim secret-4711' USING ERRCODE = '${state}'; END $$`;

/** A promise and its resolver: one transaction waits until the other holds its first lock. */
function signal() {
  let fire = () => {};
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fire, fired };
}

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('a deadlock or serialization victim runs again', () => {
  const lines: string[] = [];
  let db: Database;
  let drop: () => Promise<void>;
  const retries = () => lines.filter((l) => l.includes('running it again'));

  beforeAll(async () => {
    const created = await createTestSchema();
    drop = created.drop;
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    db = createPgDatabase({ url: process.env.TEST_DATABASE_URL as string, schema: created.schema, logger });
    await db.exec(
      'CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counters VALUES (1, 0), (2, 0)',
    );
  });

  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('two transactions locking two rows in opposite orders: the victim runs again and both count once', async () => {
    lines.length = 0;
    const firstLocked = [signal(), signal()];
    const attempts = [0, 0];
    // Transaction k locks row k+1, waits until the other holds its row, then wants the other's row: a cycle that
    // PostgreSQL breaks by rolling one back. On its next attempt the signals have fired: it waits for the other's
    // commit, then counts.
    const crossing = (k: 0 | 1) => async (tx: Queryable) => {
      attempts[k] = (attempts[k] ?? 0) + 1;
      await tx.query('UPDATE counters SET n = n + 1 WHERE id = $1', [k + 1]);
      firstLocked[k]?.fire();
      await firstLocked[1 - k]?.fired;
      await tx.query('UPDATE counters SET n = n + 1 WHERE id = $1', [2 - k]);
    };
    await Promise.all([db.transaction(crossing(0)), db.transaction(crossing(1))]);

    expect(attempts.reduce((a, b) => a + b)).toBe(3);
    const { rows } = await db.query<{ id: number; n: number }>('SELECT id, n FROM counters ORDER BY id');
    expect(rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
    expect(retries()).toHaveLength(1);
    expect(JSON.parse(retries()[0] as string)).toMatchObject({ code: '40P01', attempt: 1 });
  });

  it.each(['40P01', '40001'])(
    'a transaction that keeps losing (%s) runs at most 3 times, then fails',
    async (state) => {
      lines.length = 0;
      let attempts = 0;
      const failed = db.transaction(async (tx) => {
        attempts++;
        await tx.query(failWith(state));
      });
      await expect(failed).rejects.toMatchObject({ code: state });
      expect(attempts).toBe(MAX_VICTIM_ATTEMPTS);
      expect(retries()).toHaveLength(MAX_VICTIM_ATTEMPTS - 1);
      for (const line of lines) expect(line).not.toContain('secret-4711');
    },
  );

  it('a victim error the function caught and went on from still runs the transaction again', async () => {
    lines.length = 0;
    let attempts = 0;
    const failed = db.transaction(async (tx) => {
      attempts++;
      await tx.query(failWith('40P01')).catch(() => undefined);
      // 25P02: the transaction is aborted; that error ends the attempt.
      await tx.query('SELECT 1');
    });
    await expect(failed).rejects.toMatchObject({ code: '25P02' });
    expect(attempts).toBe(MAX_VICTIM_ATTEMPTS);
  });

  it('a statement outside a transaction is run again too; other errors are not', async () => {
    lines.length = 0;
    await expect(db.query(failWith('40001'))).rejects.toMatchObject({ code: '40001' });
    expect(retries()).toHaveLength(MAX_VICTIM_ATTEMPTS - 1);

    lines.length = 0;
    let attempts = 0;
    const refused = db.transaction(async (tx) => {
      attempts++;
      await tx.query('INSERT INTO counters VALUES (1, 0)');
    });
    await expect(refused).rejects.toMatchObject({ code: '23505' });
    expect(attempts).toBe(1);
    expect(retries()).toHaveLength(0);
  });
});
