import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/store/migrate.ts';
import { testDatabases, type TestDatabase } from '../support/testDatabase.ts';
import { ENGINES } from '../support/testServer.ts';

const tableCount = async (t: TestDatabase) => {
  const { rows } = await t.db.query<{ n: bigint }>(
    `SELECT count(*)::int8 AS n FROM information_schema.tables WHERE table_schema = current_schema()`,
  );
  return Number(rows[0]?.n);
};

describe.each(ENGINES)('migrations on %s', (engine) => {
  const dbs = testDatabases(engine);
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  afterAll(() => dbs.closeAll());

  it('applies every migration once, in order, and nothing the second time', async () => {
    t = await dbs.fresh();
    const all = await loadMigrations();
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(all.map((m) => m.version)).toEqual([...all.map((m) => m.version)].sort((a, b) => a - b));

    expect(await migrate(t.db)).toEqual(all.map((m) => m.name));
    const tables = await tableCount(t);
    expect(await migrate(t.db)).toEqual([]);
    expect(await migrate(t.db)).toEqual([]);
    expect(await tableCount(t)).toBe(tables);

    const { rows } = await t.db.query<{ version: number; name: string }>(
      'SELECT version, name FROM schema_migrations ORDER BY version',
    );
    expect(rows.map((r) => [Number(r.version), r.name])).toEqual(all.map((m) => [m.version, m.name]));
  });

  it('applies only the migrations that are new', async () => {
    t = await dbs.fresh();
    const all = await loadMigrations();
    expect(await migrate(t.db, all.slice(0, 1))).toEqual([all[0]?.name]);
    expect(await migrate(t.db, all)).toEqual(all.slice(1).map((m) => m.name));
    expect(await migrate(t.db, all)).toEqual([]);
  });

  it('a failing migration applies nothing at all (one transaction)', async () => {
    t = await dbs.fresh();
    const all = await loadMigrations();
    const broken = [...all, { version: 9999, name: '9999_broken', sql: 'CREATE TABLE x_ok (a int); SELECT nope;' }];
    await expect(migrate(t.db, broken)).rejects.toThrow();
    const { rows } = await t.db.query<{ n: bigint }>(
      `SELECT count(*)::int8 AS n FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_name IN ('merchants', 'x_ok', 'schema_migrations')`,
    );
    expect(Number(rows[0]?.n)).toBe(0);
    expect(await migrate(t.db)).toEqual(all.map((m) => m.name));
  });

  it('two concurrent migrate() calls both succeed and apply each migration once', async () => {
    t = await dbs.fresh();
    const all = await loadMigrations();
    // Separate connection pools on PostgreSQL, i.e. two instances starting at the same time.
    const results = await Promise.all([migrate(t.db), migrate(t.another()), migrate(t.another())]);
    const applied = results.flat();
    expect([...applied].sort()).toEqual(all.map((m) => m.name).sort());
    expect(results.filter((r) => r.length > 0)).toHaveLength(1);
    const { rows } = await t.db.query<{ n: bigint }>('SELECT count(*)::int8 AS n FROM schema_migrations');
    expect(Number(rows[0]?.n)).toBe(all.length);
  });
});
