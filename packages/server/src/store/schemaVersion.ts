import type { Queryable } from './Database.ts';

/**
 * The database was migrated by a newer build than this one: its schema_migrations records a version past the
 * newest migration this build ships. Such a build refuses to start (and `payrail migrate` refuses to run) rather
 * than serve a schema it has never seen (docs/operator/upgrading.md).
 */
export class SchemaTooNew extends Error {
  constructor(
    readonly database: number,
    readonly build: number,
  ) {
    super(
      `the database schema is at ${database} but this build knows up to ${build}: ` +
        'upgrade this instance or roll the database back',
    );
    this.name = 'SchemaTooNew';
  }
}

/** The newest of the given versions, 0 for none: the schema version they make. */
export const newestVersion = (versions: Iterable<number>): number => Math.max(0, ...versions);

/** The schema version the database is at: the newest migration recorded in schema_migrations (0: none). */
export async function readSchemaVersion(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  return Number(rows[0]?.version ?? 0);
}
