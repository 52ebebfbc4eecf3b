import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from '../src/store/migrate.ts';
import { createPgliteDatabase } from '../src/store/pgliteDatabase.ts';
import { PGLITE_TEMPLATES_ENV, templateFile } from './support/pgliteTemplates.ts';

/**
 * Builds the packages first (about a second: esbuild, no type declarations), so that the tests which run the CLI as
 * it is installed (packages/cli/test/support.ts) run what the sources say now. Then saves two PGlite clusters once
 * per test run, a bare one and a migrated one, for the test files to start from (test/support/pgliteTemplates.ts).
 * Workers are started after this runs and inherit the environment variable.
 */
export default async function setup(): Promise<() => Promise<void>> {
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../../../scripts/build.mjs', import.meta.url)), '--no-types'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const dir = await mkdtemp(join(tmpdir(), 'payrail-pglite-templates-'));
  const db = await createPgliteDatabase(undefined);
  const save = async (kind: 'bare' | 'migrated') =>
    writeFile(templateFile(dir, kind), Buffer.from(await (await db.dump()).arrayBuffer()));
  await save('bare');
  await migrate(db);
  await save('migrated');
  await db.close();
  process.env[PGLITE_TEMPLATES_ENV] = dir;
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
