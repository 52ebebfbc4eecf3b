import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * All SQL lives in packages/server/src/store (ARCHITECTURE.md, "Layers"): `npm run lint` fails on SQL text anywhere
 * else in the server's sources. This file checks that the rule (eslint.config.js, SQL_OUTSIDE_STORE) is in force
 * where it should be and nowhere else, so that a change to the configuration cannot switch it off unnoticed.
 */
describe('SQL outside packages/server/src/store', () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  /** The messages of the SQL rule for `code` as if it were the file `path`. */
  const sqlMessages = async (path: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: `${ROOT}${path}` });
    return (result?.messages ?? [])
      .filter((m) => m.ruleId === 'no-restricted-syntax' && /SQL/.test(m.message))
      .map((m) => m.line);
  };

  const SAMPLES = {
    'a query given a string': `export const f = (db: { query(s: string): unknown }) => db.query('SELECT 1');\n`,
    'a query given a template': 'export const f = (db: { query(s: string): unknown }) => db.query(`SELECT ${1}`);\n',
    'SQL held in a variable': `export const SQL = 'UPDATE payouts SET rail_error = NULL WHERE id = $1';\n`,
    'a multi-line statement': 'export const SQL = `\n  INSERT INTO jobs (kind) VALUES ($1)`;\n',
    'an advisory lock': `export const SQL = 'SELECT pg_try_advisory_xact_lock($1) AS ok';\n`,
    'a transaction setting': `export const SQL = 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ';\n`,
  };

  for (const [what, code] of Object.entries(SAMPLES)) {
    it(`refuses ${what} in services/, jobs/, rails/, http/ and server.ts`, async () => {
      for (const path of [
        'packages/server/src/services/Example.ts',
        'packages/server/src/jobs/Example.ts',
        'packages/server/src/rails/bankfile/Example.ts',
        'packages/server/src/http/routes/Example.ts',
        'packages/server/src/server.ts',
      ]) {
        expect(await sqlMessages(path, code), path).not.toEqual([]);
      }
    });

    it(`allows ${what} in store/`, async () => {
      expect(await sqlMessages('packages/server/src/store/repositories/Example.ts', code)).toEqual([]);
    });
  }

  it('does not take a route key or an ordinary call for SQL', async () => {
    const code = [
      `export const key = 'DELETE /console/api/session';`,
      `export const word = 'Select a wallet to update';`,
      `export const m = /x/.exec(String(key));`,
      `export const q = (r: { query: Record<string, string> }) => r.query;`,
    ].join('\n');
    expect(await sqlMessages('packages/server/src/http/routes/Example.ts', `${code}\n`)).toEqual([]);
  });
});
