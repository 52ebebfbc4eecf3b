import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectLedgerOk, fundedMerchant, payoutRequest, waitForStatus } from '../support/payoutFixtures.ts';
import { hasPgBouncer, PGBOUNCER, TempPgBouncer } from '../support/tempPgBouncer.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

const DATABASE_URL = process.env.TEST_DATABASE_URL;
const hasBouncer = hasPgBouncer();
const run = DATABASE_URL !== undefined && hasBouncer;

const missing = [
  ...(DATABASE_URL === undefined ? ['TEST_DATABASE_URL'] : []),
  ...(hasBouncer ? [] : [`${PGBOUNCER} (apt-get install -y pgbouncer)`]),
];
if (missing.length > 0 && !process.env.CI) console.warn(`PgBouncer test skipped: no ${missing.join(', no ')}`);

// CI installs pgbouncer (.ci/run) and must never skip this: a missing one fails here, before any is started
// (spawning a missing binary would crash the run instead). Without TEST_DATABASE_URL, ci/servicesRequired fails.
describe.runIf(DATABASE_URL !== undefined && !hasBouncer && process.env.CI)('behind PgBouncer (CI)', () => {
  it('needs pgbouncer', () => {
    expect.fail(`${PGBOUNCER} is missing: .ci/run installs it (apt-get install -y pgbouncer)`);
  });
});

/**
 * Payrail behind Debian's PgBouncer (1.18) in transaction mode (docs/internals/performance.md): with
 * PAYRAIL_PG_PREPARED_STATEMENTS=false everything works while 20 pool connections share 3 server connections;
 * with prepared statements on, the same traffic fails (1.18 does not carry them between server connections),
 * which is why the setting exists.
 */
describe.runIf(run)('behind PgBouncer in transaction mode', () => {
  const database = `payrail_pgb_${randomBytes(4).toString('hex')}`;
  let bouncer: TempPgBouncer;
  let receiver: WebhookReceiver;
  const url = new URL(DATABASE_URL ?? 'postgres://localhost/test');

  beforeAll(async () => {
    const owner = new pg.Client({ connectionString: DATABASE_URL });
    await owner.connect();
    await owner.query(`CREATE DATABASE ${database}`);
    await owner.end();
    bouncer = await TempPgBouncer.start({
      host: url.hostname,
      port: Number(url.port || 5432),
      database,
      user: decodeURIComponent(url.username) || 'postgres',
    });
    receiver = await new WebhookReceiver().start();
  }, 60_000);

  afterAll(async () => {
    await receiver?.stop();
    await bouncer?.stop();
    const owner = new pg.Client({ connectionString: DATABASE_URL });
    await owner.connect();
    await owner.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await owner.end();
  });

  const server = (prepared: boolean) =>
    startTestServer('postgres', {
      // The bouncer's database has Payrail alone: the public schema, not a test schema (PgBouncer drops `options`).
      schema: 'public',
      env: {
        DATABASE_URL: bouncer.url(decodeURIComponent(url.username) || 'postgres'),
        PAYRAIL_PG_PREPARED_STATEMENTS: String(prepared),
        PAYRAIL_WEBHOOK_ALLOW_PRIVATE: 'true',
      },
    });

  it('with prepared statements off: concurrent payouts settle, webhooks arrive, the ledger holds', async () => {
    const t: TestServer = await server(false);
    try {
      const funded = await Promise.all([1, 2, 3].map(() => fundedMerchant(t.url, 'v2', '1000.00')));
      const answers = await Promise.all(
        funded.flatMap(({ merchant, client }) =>
          Array.from({ length: 12 }, () =>
            client.post(
              '/payout/v1/initiate',
              payoutRequest('nested', {
                wallet_id: merchant.wallet_id,
                amount: '90.00',
                callback_url: `${receiver.url}/pgb`,
              }),
            ),
          ),
        ),
      );
      // 12 × 90 = 1080 > 1000: per merchant, 11 payouts fit and one is refused by the balance.
      const codes = answers.map((a) => a.body.resp_code as number);
      expect(codes.filter((c) => c === 2000)).toHaveLength(33);
      expect(codes.filter((c) => c === 4002)).toHaveLength(3);
      const ids = answers.filter((a) => a.body.resp_code === 2000).map((a) => a.data?.transaction_id as string);
      for (const id of ids) await waitForStatus(t.url, id, 'SUCCESS', 20_000);
      await eventually(() => receiver.at('/pgb').length >= ids.length * 2, 20_000);
      for (const { client } of funded) {
        const status = await client.get(`/payout/v1/status?transaction_id=${ids[0]}`);
        expect([2000, 4103]).toContain(status.body.resp_code);
      }
      await expectLedgerOk(t.url);
      // All of it went through the bouncer: the database saw at most its 3 server connections, not the pool's 20.
      const direct = new pg.Client({ connectionString: DATABASE_URL });
      await direct.connect();
      const { rows } = await direct.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [
        database,
      ]);
      await direct.end();
      expect(rows[0].n).toBeGreaterThan(0);
      expect(rows[0].n).toBeLessThanOrEqual(3);
    } finally {
      await t.close();
    }
  }, 120_000);

  it('with prepared statements on, PgBouncer 1.18 breaks the same traffic (why the setting exists)', async () => {
    const t: TestServer = await server(true);
    try {
      const { merchant, client } = await fundedMerchant(t.url, 'v2', '1000.00');
      const answers = await Promise.all(
        Array.from({ length: 40 }, () =>
          client.get(`/payout/v1/balance?wallet_id=${merchant.wallet_id}`).catch(() => null),
        ),
      );
      const failed = answers.filter((a) => a === null || a.body.resp_code !== 2000);
      expect(failed.length).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  }, 120_000);
});
