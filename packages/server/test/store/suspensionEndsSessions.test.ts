import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/store/migrate.ts';
import { testDatabases, type TestDatabase } from '../support/testDatabase.ts';
import { ENGINES } from '../support/testServer.ts';

/** The migration under test: a suspension advances the merchant's credentials version (issue 28). */
const VERSION = 28;

/**
 * Migration 028 in the database itself: the change to 'suspended' advances `credentials_version` whatever statement
 * makes it, and merchants already suspended when it is applied get theirs advanced once (their tokens from before the
 * suspension may still be within their lifetime). The HTTP side is test/http/suspensionEndsTokens.test.ts.
 */
describe.each(ENGINES)('migration 028 (a suspension ends earlier sessions) on %s', (engine) => {
  const dbs = testDatabases(engine);
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  afterAll(() => dbs.closeAll());

  const insert = (id: string, status: string, cv: number) =>
    t!.db.query(
      `INSERT INTO merchants (id, name, status, api_key, secret_key, webhook_secret, credentials_version)
       VALUES ($1, $1, $2, $1 || '-key', 's', 'w', $3)`,
      [id, status, cv],
    );
  const versions = async () => {
    const { rows } = await t!.db.query<{ id: string; cv: number }>(
      'SELECT id, credentials_version AS cv FROM merchants ORDER BY id',
    );
    return Object.fromEntries(rows.map((r) => [r.id, Number(r.cv)]));
  };
  const setStatus = (id: string, status: string) =>
    t!.db.query('UPDATE merchants SET status = $2 WHERE id = $1', [id, status]);

  it('advances the version of the merchants suspended when it is applied, and of no other', async () => {
    t = await dbs.fresh();
    const all = await loadMigrations();
    expect(all.some((m) => m.version === VERSION)).toBe(true);
    await migrate(
      t.db,
      all.filter((m) => m.version < VERSION),
    );
    await insert('m-active', 'active', 1);
    await insert('m-suspended', 'suspended', 3);
    await migrate(t.db, all);
    expect(await versions()).toEqual({ 'm-active': 1, 'm-suspended': 4 });
  });

  it('advances it on every change to suspended, and only then', async () => {
    t = await dbs.fresh();
    await migrate(t.db);
    await insert('m', 'active', 1);
    await setStatus('m', 'suspended');
    expect(await versions()).toEqual({ m: 2 });
    await setStatus('m', 'suspended'); // already suspended: nothing issued since to end
    await setStatus('m', 'active');
    expect(await versions()).toEqual({ m: 2 });
    await t.db.query("UPDATE merchants SET name = 'renamed', daily_limit = 100 WHERE id = 'm'");
    expect(await versions()).toEqual({ m: 2 });
    // Suspended and rotated in one statement: past what the statement wrote.
    await t.db.query(
      "UPDATE merchants SET status = 'suspended', credentials_version = credentials_version + 1 WHERE id = 'm'",
    );
    expect(await versions()).toEqual({ m: 4 });
  });
});
