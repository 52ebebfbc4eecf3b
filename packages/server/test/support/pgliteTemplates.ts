import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createPgliteDatabase } from '../../src/store/pgliteDatabase.ts';

/**
 * In-memory PGlite databases for tests, started from clusters saved once per test run (test/globalSetup.ts):
 * a new PGlite runs initdb, about 3 s on this machine, while loading a saved cluster takes about 0.7 s. Without
 * the saved clusters (a test run outside Vitest's global setup) each database is made from scratch.
 */
export const PGLITE_TEMPLATES_ENV = 'PAYRAIL_TEST_PGLITE_TEMPLATES';

export type PgliteTemplate = 'bare' | 'migrated';

export const templateFile = (dir: string, kind: PgliteTemplate) => join(dir, `${kind}.tar`);

const cache = new Map<PgliteTemplate, Promise<Blob>>();

/** A fresh in-memory PGlite: `bare` as initdb leaves it, `migrated` with every migration applied. */
export async function templatePglite(kind: PgliteTemplate): Promise<Database> {
  const dir = process.env[PGLITE_TEMPLATES_ENV];
  if (!dir) {
    const db = await createPgliteDatabase(undefined);
    if (kind === 'migrated') await migrate(db);
    return db;
  }
  let blob = cache.get(kind);
  if (!blob) {
    blob = readFile(templateFile(dir, kind)).then((bytes) => new Blob([bytes]));
    cache.set(kind, blob);
  }
  const db = await createPgliteDatabase(undefined, { loadDataDir: await blob });
  // Migrations added since the template was saved (none within one run) still apply.
  if (kind === 'migrated') await migrate(db);
  return db;
}
