import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Database } from './Database.ts';
import { newestVersion, SchemaTooNew } from './schemaVersion.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
/** Arbitrary constant: every Payrail instance takes this transaction-scoped advisory lock to migrate. */
const MIGRATION_LOCK_KEY = 7_273_845_001;

/*
 * Versions are the numbers the files in migrations/ start with, applied in order, each once (schema_migrations).
 * The sequence has gaps: 021, 022 and 027 are absent. No migration with those numbers was ever committed (git log
 * of migrations/ shows none): 023_upstream_collections (commit 9b16d53) and 028_suspension_ends_sessions (62c7052,
 * committed before 026_exceptions) were numbered past them, and the history does not say why. An applied migration
 * cannot be renumbered: databases record its version in schema_migrations, so a renumbered file would run a
 * second time there. A gap is harmless: every version not yet recorded is applied, in number order, whatever the
 * numbers between. A new migration takes the number after the highest in migrations/.
 */

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const migrationFiles = async (dir: string): Promise<string[]> =>
  (await readdir(dir)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();

/** The newest version this build ships (its schema version), from the files' names alone. */
export async function newestMigrationVersion(dir = MIGRATIONS_DIR): Promise<number> {
  return newestVersion((await migrationFiles(dir)).map((file) => Number.parseInt(file, 10)));
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = await migrationFiles(dir);
  return Promise.all(
    files.map(async (file) => ({
      version: Number.parseInt(file, 10),
      name: file.replace(/\.sql$/, ''),
      sql: await readFile(dir + file, 'utf8'),
    })),
  );
}

/**
 * Applies the migrations not yet applied, all in one transaction under an advisory lock, so that two
 * instances starting at once neither collide nor apply anything twice. Returns the names applied now. Throws
 * SchemaTooNew, applying nothing, when the database records a version newer than the newest of `migrations`.
 */
export async function migrate(db: Database, migrations?: Migration[]): Promise<string[]> {
  const all = migrations ?? (await loadMigrations());
  return db.transaction(async (tx) => {
    // Migrations (and the wait for another instance's) may take longer than the statement timeout of requests.
    await tx.query(`SELECT set_config('statement_timeout', '0', true)`);
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(done.rows.map((r) => Number(r.version)));
    // A newer build migrated this database: this one refuses rather than run on a schema it does not know.
    const database = newestVersion(applied);
    const build = newestVersion(all.map((m) => m.version));
    if (database > build) throw new SchemaTooNew(database, build);
    const now: string[] = [];
    for (const m of all) {
      if (applied.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      now.push(m.name);
    }
    return now;
  });
}
