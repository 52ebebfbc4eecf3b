import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from './support.ts';

let t: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  t = await startTestServer('pglite');
  env = { PAYRAIL_URL: t.url, PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
});
afterAll(() => t?.close());

describe('payrail operator', () => {
  it('creates an operator through the admin API, so the admin token is recorded as its grantor', async () => {
    const res = await cli(
      ['operator', 'create', 'ravi@example.test', '--role', 'finance', '--password-stdin', '--json'],
      env,
      { stdin: 'a password of the admin\n' },
    );
    expect(res.code).toBe(0);
    const id = res.json.operator_id as string;
    expect(id).toMatch(/^OP/);
    // Its approval lineage: created by the admin token (no operator), which credits directly anyway.
    const { rows } = await t.db.query<{ kind: string; granted_by: string; granted_by_id: string | null }>(
      'SELECT kind, granted_by, granted_by_id FROM operator_grants WHERE operator_id = $1',
      [id],
    );
    expect(rows).toEqual([{ kind: 'create', granted_by: 'operator:admin-token', granted_by_id: null }]);
  });
});
