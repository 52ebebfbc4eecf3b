import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { PgliteVacuum } from '../../src/store/PgliteVacuum.ts';
import { testDatabases, type TestDatabase } from '../support/testDatabase.ts';

/** PGlite has no autovacuum: the server's own pass reclaims the dead rows of the queue tables (issue 13 drain). */
describe('PgliteVacuum', () => {
  const dbs = testDatabases('pglite');
  let t: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    t = await dbs.fresh();
    db = t.db;
    await migrate(db);
  });
  afterAll(() => dbs.closeAll());

  // Pages of the table, and what the planner believes it holds (-1 until ANALYZE or VACUUM has looked).
  const jobsTable = async () =>
    (
      await db.query<{ pages: string; tuples: number }>(
        "SELECT (pg_relation_size('jobs') / 8192)::text AS pages, reltuples AS tuples FROM pg_class WHERE relname = 'jobs'",
      )
    ).rows[0] as { pages: string; tuples: number };

  it('a pass vacuums and analyzes the churned tables, and passes never overlap', async () => {
    await db.query(
      `INSERT INTO jobs (kind, subject_id, run_at)
         SELECT 'collection.expire', 'CT' || g, now() FROM generate_series(1, 2000) AS g`,
    );
    await db.query('UPDATE jobs SET attempts = attempts + 1');
    await db.query('DELETE FROM jobs');
    // Every row is dead, but the table keeps its pages until a vacuum.
    expect(Number((await jobsTable()).pages)).toBeGreaterThan(10);
    const vacuum = new PgliteVacuum(db, (err) => {
      throw err;
    });
    const [a, b] = [vacuum.pass(), vacuum.pass()];
    expect(a).toBe(b);
    await a;
    // The dead rows are gone (an empty table is truncated to nothing) and the planner knows it holds none.
    expect(await jobsTable()).toEqual({ pages: '0', tuples: 0 });
    await vacuum.stop();
  });
});
