import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import type { Database } from '../../src/store/Database.ts';
import { loadMigrations, migrate, type Migration } from '../../src/store/migrate.ts';
import { createPgDatabase } from '../../src/store/pgDatabase.ts';
import { admin, createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { payoutRequest, SANDBOX, senderId } from '../support/payoutFixtures.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

/**
 * Issue 33's rolling upgrade: a newer build applies an expand-only migration (a column added to `merchants` and to
 * `payouts`) while an instance of the older build serves a steady stream of merchant requests (tokens, status
 * reads, initiations) and its worker steps payouts. The older instance must answer every request as before: no
 * HTTP 500, no 5000 (it answered token requests with 5000 before: prepared statements over `SELECT *`). PostgreSQL
 * only: PGlite is one process's database, migrated only at its start.
 */

/** The newer build's migration, as a test-only list passed to migrate(): far past any real version. */
const EXPAND: Migration = {
  version: 9_001,
  name: '9001_upgrade_probe',
  sql: `ALTER TABLE merchants ADD COLUMN upgrade_probe text;
        ALTER TABLE payouts ADD COLUMN upgrade_probe text NOT NULL DEFAULT 'expand-only'`,
};
/** Requests in flight at once, and how long the stream runs before and after the migration. */
const CLIENTS = 4;
const BEFORE_MS = 2_500;
const AFTER_MS = 3_500;

interface Answer {
  what: string;
  status: number;
  respCode: unknown;
  at: number;
}

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('an older instance while a newer one migrates', () => {
  const lines: string[] = [];
  let t: TestServer;
  let newer: Database;
  let merchant: TestMerchant;

  beforeAll(async () => {
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    t = await startTestServer('postgres', {
      logger,
      env: { PAYRAIL_RATE_LIMIT_PER_MINUTE: '1000000', PAYRAIL_MERCHANT_CACHE_MS: '0', PAYRAIL_SANDBOX_STEP_MS: '20' },
    });
    // The newer build's instance: its own pool on the same database.
    newer = createPgDatabase({ url: process.env.TEST_DATABASE_URL as string, schema: t.schema });
    merchant = await createMerchant(t.url, 'Upgrade Traffic', '1000000.00');
  });

  afterAll(async () => {
    await newer?.close();
    await t?.close();
  });

  it('answers a steady stream with no 500 and no 5000 while merchants and payouts gain a column', async () => {
    const answers: Answer[] = [];
    let stop = false;
    const record = (what: string, res: { status: number; body: Record<string, unknown> }) =>
      // Tokens answer respCode, payouts resp_code (as the provider does).
      answers.push({ what, status: res.status, respCode: res.body.respCode ?? res.body.resp_code, at: Date.now() });

    /** One merchant integration: a token, an initiation, its status, over and over. */
    const client = async (n: number) => {
      while (!stop) {
        const token = await http(t.url, 'POST', '/v1/auth/client-token', {
          body: { apiKey: merchant.api_key, secretKey: merchant.secret_key },
        });
        record('token', token);
        const session = new MerchantClient(t.url, merchant, 'v2');
        await session.login();
        const sender = senderId(`U${n}`);
        const initiate = await session.post(
          '/payout/v1/initiate',
          payoutRequest('nested', {
            sender_id: sender,
            wallet_id: merchant.wallet_id,
            amount: '1.00',
            beneficiary_ifsc: SANDBOX.ifsc,
            beneficiary_acc_number: SANDBOX.success,
          }),
        );
        record('initiate', initiate);
        record('status', await session.get(`/payout/v1/status?sender_id=${sender}`));
      }
    };

    const running = Array.from({ length: CLIENTS }, (_, n) => client(n));
    await sleep(BEFORE_MS);
    const migratedAt = Date.now();
    expect(await migrate(newer, [...(await loadMigrations()), EXPAND])).toEqual([EXPAND.name]);
    await sleep(AFTER_MS);
    stop = true;
    await Promise.all(running);

    const failed = answers.filter((a) => a.status >= 500 || a.respCode === 5000);
    expect(failed).toEqual([]);
    const after = answers.filter((a) => a.at > migratedAt);
    // The stream really ran across the migration, each kind of request on both sides of it.
    for (const what of ['token', 'initiate', 'status']) {
      expect(answers.filter((a) => a.what === what && a.at < migratedAt).length, what).toBeGreaterThan(5);
      expect(after.filter((a) => a.what === what).length, what).toBeGreaterThan(5);
    }
    expect([...new Set(answers.map((a) => a.respCode))]).toEqual([2000]);
    // The instance met statements the migration made stale, and prepared them again rather than failing.
    expect(lines.some((l) => l.includes('preparing it again'))).toBe(true);
    // Its worker went on too: no failed pass, and the payouts reach SUCCESS.
    expect(lines.filter((l) => /worker pass failed|"level":50/.test(l))).toEqual([]);
    const initiated = answers.filter((a) => a.what === 'initiate').length;
    const done = async () => {
      const { rows } = await newer.query<{ n: bigint }>(
        `SELECT count(*)::int8 AS n FROM payouts WHERE status = 'SUCCESS' AND upgrade_probe = 'expand-only'`,
      );
      return Number(rows[0]?.n) === initiated;
    };
    await eventually(done, 15_000, 100);
    expect((await admin(t.url, 'GET', '/admin/v1/ledger/verify')).body).toMatchObject({ ok: true });

    // It says it runs on a schema newer than it knows, once a readiness check has read it.
    expect((await http(t.url, 'GET', '/readyz')).status).toBe(200);
    expect((await http(t.url, 'GET', '/healthz')).body).toMatchObject({ schema: { database: EXPAND.version } });
  }, 30_000);
});
