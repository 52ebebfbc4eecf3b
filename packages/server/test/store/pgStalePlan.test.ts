import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import type { Database } from '../../src/store/Database.ts';
import { createPgDatabase } from '../../src/store/pgDatabase.ts';
import { createTestSchema } from '../support/testServer.ts';

/**
 * Issue 33: a migration that adds a column, applied by a newer instance while this one serves, made every named
 * prepared statement over `SELECT *` / `RETURNING *` of that table fail with 0A000 "cached plan must not change
 * result type", on every connection, until a restart. store/pgDatabase.ts runs such a statement again under a new
 * name. PostgreSQL only: PGlite is one process's database and is migrated only at its start.
 */
describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('a migration under prepared statements', () => {
  const url = process.env.TEST_DATABASE_URL as string;
  const lines: string[] = [];
  let schema: string;
  let drop: () => Promise<void>;
  let db: Database;
  let ddl: pg.Client;

  beforeAll(async () => {
    ({ schema, drop } = await createTestSchema());
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    db = createPgDatabase({ url, schema, logger, maxConnections: 4 });
    // The migration comes from another connection, as from another instance.
    ddl = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await ddl.connect();
    await ddl.query(`CREATE TABLE accounts (id int PRIMARY KEY, name text NOT NULL);
      INSERT INTO accounts VALUES (1, 'one'), (2, 'two')`);
  });

  afterAll(async () => {
    await db?.close();
    await ddl?.end();
    await drop?.();
  });

  it('is what PostgreSQL does to a named statement over SELECT * (the failure the driver must survive)', async () => {
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await client.connect();
    try {
      const q = { name: 'raw_select_star', text: 'SELECT * FROM accounts WHERE id = $1', values: [1] };
      await client.query(q);
      await ddl.query('ALTER TABLE accounts ADD COLUMN raw_probe text');
      const err = await client.query(q).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: '0A000', message: 'cached plan must not change result type' });
    } finally {
      await client.end();
    }
  });

  it('statements, RETURNING * and transactions prepared before an ADD COLUMN still answer after it', async () => {
    lines.length = 0;
    const select = () => db.query<Record<string, unknown>>('SELECT * FROM accounts WHERE id = $1', [1]);
    const update = () =>
      db.query<Record<string, unknown>>('UPDATE accounts SET name = name WHERE id = $1 RETURNING *', [2]);
    const inTransaction = () =>
      db.transaction(async (tx) => {
        const a = await tx.query<Record<string, unknown>>('SELECT * FROM accounts WHERE id = $1 FOR UPDATE', [1]);
        const b = await tx.query<Record<string, unknown>>('UPDATE accounts SET name = $2 WHERE id = $1 RETURNING *', [
          1,
          'one',
        ]);
        return [a.rows[0], b.rows[0]];
      });
    // Prepared on every connection of the pool (four at once hold four connections).
    const everywhere = () => Promise.all([0, 1, 2, 3].map(() => Promise.all([select(), update(), inTransaction()])));
    await everywhere();

    await ddl.query(`ALTER TABLE accounts ADD COLUMN region text NOT NULL DEFAULT 'IN'`);

    const after = await everywhere();
    for (const [s, u, [a, b]] of after) {
      expect(s.rows[0]).toMatchObject({ id: 1, region: 'IN' });
      expect(u.rows[0]).toMatchObject({ id: 2, region: 'IN' });
      expect(a).toMatchObject({ id: 1, region: 'IN' });
      expect(b).toMatchObject({ id: 1, region: 'IN' });
    }
    // Each stale statement was prepared again under a new name, logged with its SQLSTATE and nothing of the SQL.
    const retries = lines.filter((l) => l.includes('preparing it again'));
    expect(retries.length).toBeGreaterThan(0);
    for (const line of retries) {
      expect(JSON.parse(line)).toMatchObject({ code: '0A000' });
      expect(line).not.toContain('accounts');
    }
    // Bounded: a statement is renamed at its first failure, so it fails at most once per connection that ran it at
    // the same moment (four statements, four connections), however many rounds follow.
    for (let round = 0; round < 3; round++) await everywhere();
    expect(lines.filter((l) => l.includes('preparing it again')).length).toBeLessThanOrEqual(16);
  });

  it('on one connection, a stale statement fails once and is never retried again', async () => {
    const single = createPgDatabase({
      url,
      schema,
      logger: createLogger('warn', { write: (l: string) => void lines.push(l) }),
      maxConnections: 1,
    });
    try {
      const texts = [
        'SELECT * FROM accounts WHERE id = $1',
        'SELECT * FROM accounts WHERE id = $1 AND name IS NOT NULL',
      ];
      const round = () => Promise.all(texts.map((sql) => single.query(sql, [1])));
      await round();
      await ddl.query('ALTER TABLE accounts ADD COLUMN single_probe text');
      lines.length = 0;
      await round();
      // The first fails; pg-pool then replaces the connection, where the second is prepared afresh.
      expect(lines.filter((l) => l.includes('preparing it again')).length).toBeGreaterThanOrEqual(1);
      lines.length = 0;
      await round();
      await round();
      expect(lines.filter((l) => l.includes('preparing it again'))).toEqual([]);
    } finally {
      await single.close();
    }
  });

  it('a PL/pgSQL function returning SETOF a table, called through another, survives the column too', async () => {
    await ddl.query(`CREATE TABLE ledger (id int PRIMARY KEY, amount int8 NOT NULL);
      CREATE FUNCTION ledger_add(p_id int, p_amount int8) RETURNS SETOF ledger LANGUAGE plpgsql AS $$
      BEGIN RETURN QUERY INSERT INTO ledger VALUES (p_id, p_amount) RETURNING *; END $$;
      CREATE FUNCTION ledger_add_checked(p_id int, p_amount int8) RETURNS SETOF ledger LANGUAGE plpgsql AS $$
      BEGIN IF p_amount <= 0 THEN RAISE EXCEPTION 'amount'; END IF;
        RETURN QUERY SELECT * FROM ledger_add(p_id, p_amount); END $$`);
    const add = (id: number) =>
      db.transaction((tx) => tx.query<Record<string, unknown>>('SELECT * FROM ledger_add_checked($1, $2)', [id, 5n]));
    // The inner function's plan is cached in every connection of the pool.
    await Promise.all([1, 2, 3, 4].map(add));
    lines.length = 0;
    await ddl.query(`ALTER TABLE ledger ADD COLUMN memo text NOT NULL DEFAULT 'ok'`);
    const added = await Promise.all([5, 6, 7, 8].map(add));
    for (const result of added) expect(result.rows[0]).toMatchObject({ memo: 'ok' });
    const { rows } = await db.query<{ n: bigint }>('SELECT count(*)::int8 AS n FROM ledger WHERE id > $1', [4]);
    expect(Number(rows[0]?.n)).toBe(4);
  });

  it('a function that is really wrong still fails, after at most one more run per connection', async () => {
    await ddl.query(`CREATE FUNCTION broken_rows() RETURNS SETOF accounts LANGUAGE plpgsql AS $$
      BEGIN RETURN QUERY SELECT 1, 'x'; END $$`);
    lines.length = 0;
    await expect(db.query('SELECT * FROM broken_rows() WHERE $1::int = 1', [1])).rejects.toMatchObject({
      code: '42804',
    });
    // maxConnections 4: five more runs, each on another connection, then the error.
    expect(lines.filter((l) => l.includes('running it again'))).toHaveLength(5);
  });

  it('a second migration later is survived the same way', async () => {
    await db.query('SELECT * FROM accounts WHERE id = $1', [1]);
    await ddl.query('ALTER TABLE accounts ADD COLUMN note text');
    const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM accounts WHERE id = $1', [1]);
    expect(rows[0]).toHaveProperty('note', null);
  });
});
