import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/Database.ts';
import { loadMigrations, migrate } from '../../src/store/migrate.ts';
import { createPgDatabase } from '../../src/store/pgDatabase.ts';
import { SchemaTooNew } from '../../src/store/schemaVersion.ts';
import { exitWithin, freePort, spawnServer, type ChildServer } from '../support/childServer.ts';
import { http } from '../support/merchantClient.ts';
import { testDatabases, type TestDatabase } from '../support/testDatabase.ts';
import { createTestSchema, ENGINES, startTestServer } from '../support/testServer.ts';

/** What a newer build would have recorded: a migration this build does not ship. */
const recordNewer = (db: Database, version: number) =>
  db.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, `${version}_from_the_future`]);

describe.each(ENGINES)('the schema version on %s', (engine) => {
  const dbs = testDatabases(engine);
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  afterAll(() => dbs.closeAll());

  it('migrate() refuses a database a newer build migrated, naming both versions', async () => {
    t = await dbs.fresh();
    const all = await loadMigrations();
    const known = Math.max(...all.map((m) => m.version));
    await migrate(t.db);
    await recordNewer(t.db, known + 3);
    const refused = await migrate(t.db).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SchemaTooNew);
    expect((refused as Error).message).toBe(
      `the database schema is at ${known + 3} but this build knows up to ${known}: ` +
        'upgrade this instance or roll the database back',
    );
    // The same build with the newer migration in its list (the newer build) goes on as usual.
    const newer = [...all, { version: known + 3, name: `${known + 3}_from_the_future`, sql: 'SELECT 1' }];
    expect(await migrate(t.db, newer)).toEqual([]);
  });

  it('a server left running reports the newer database schema once its readiness check has read it', async () => {
    t = await dbs.fresh();
    await migrate(t.db);
    const known = Math.max(...(await loadMigrations()).map((m) => m.version));
    const server = await startTestServer(engine, { db: t.db, ...(t.schema ? { schema: t.schema } : {}) });
    try {
      expect((await http(server.url, 'GET', '/healthz')).body).toMatchObject({
        schema: { build: known, database: known },
      });
      await recordNewer(t.db, known + 1);
      expect((await http(server.url, 'GET', '/readyz')).status).toBe(200);
      expect((await http(server.url, 'GET', '/healthz')).body).toMatchObject({
        schema: { build: known, database: known + 1 },
      });
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toContain(`payrail_schema_version{of="database"} ${known + 1}`);
    } finally {
      await server.close();
    }
  });
});

/**
 * The real start (`npm start`'s main.ts as a child process) on PostgreSQL: it logs both versions once listening,
 * and refuses, with the message on stderr and exit 1, once a newer build has migrated the database. (PGlite's
 * start is the same code after its initdb, which takes a minute here: its refusal is migrate()'s, tested above.)
 */
describe.runIf(process.env.TEST_DATABASE_URL)('starting on PostgreSQL', () => {
  let child: ChildServer | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await child?.kill();
    await drop?.();
  });

  it('logs the version, the commit and both schema versions, then refuses a newer schema', async () => {
    const created = await createTestSchema();
    drop = created.drop;
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    url.searchParams.set('options', `-c search_path=${created.schema}`);
    const env = { DATABASE_URL: url.toString(), LOG_LEVEL: 'info', PAYRAIL_ADMIN_TOKEN: 'x'.repeat(40) };
    child = spawnServer({ ...env, PORT: String(await freePort()) });
    await child.ready();
    const known = Math.max(...(await loadMigrations()).map((m) => m.version));
    const listening = child
      .output()
      .stdout.split('\n')
      .filter((line) => line.includes('"payrail listening"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(listening).toHaveLength(1);
    expect(listening[0]).toMatchObject({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      schema: { build: known, database: known },
      worker: 'on',
    });
    await child.kill();

    const db = createPgDatabase({ url: process.env.TEST_DATABASE_URL as string, schema: created.schema });
    await recordNewer(db, known + 2).finally(() => db.close());
    child = spawnServer({ ...env, PORT: String(await freePort()) });
    const exit = await exitWithin(child, 60_000);
    expect(exit.code).toBe(1);
    expect(child.output().stderr).toContain(
      `payrail: failed to start: the database schema is at ${known + 2} but this build knows up to ${known}: ` +
        'upgrade this instance or roll the database back',
    );
  }, 120_000);
});
