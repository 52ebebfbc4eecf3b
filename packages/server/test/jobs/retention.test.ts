import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/configError.ts';
import { loadConfig } from '../../src/config.ts';
import { createMerchant, type TestMerchant } from '../support/merchantClient.ts';
import { movableClock, type TestClock } from '../support/testClock.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const DAY = 86_400_000;

describe('PAYRAIL_RETENTION_DAYS', () => {
  const retention = (value: string | undefined) =>
    loadConfig(value === undefined ? {} : { PAYRAIL_RETENTION_DAYS: value }).retentionDays;

  it('is 90 days unless set; off or 0 keeps forever; anything else but a whole number is refused', () => {
    expect(retention(undefined)).toBe(90);
    expect(retention('30')).toBe(30);
    expect(retention('off')).toBeNull();
    expect(retention('OFF')).toBeNull();
    expect(retention('0')).toBeNull();
    for (const bad of ['-1', '1.5', '90d', 'never']) expect(() => retention(bad)).toThrow(ConfigError);
  });
});

/**
 * Retention (issue 35): the worker removes delivered webhook deliveries older than the window with their attempts,
 * in batches, on the injected clock; failed and pending ones, and everything else, stay.
 */
describe.each(ENGINES)('retention of webhook deliveries on %s', (engine) => {
  let t: TestServer;
  let clock: TestClock;
  let m: TestMerchant;

  /** Deliveries of `state` delivered (or created, when not delivered) `daysAgo` days before the database's now. */
  async function seed(prefix: string, state: string, daysAgo: number, count: number, attemptsEach: number) {
    await t.db.query(
      `INSERT INTO webhook_deliveries (id, merchant_id, subject_id, type, url, scheme, snapshot, state, attempts,
                                       next_attempt_at, created_at, delivered_at)
       SELECT $1 || g, $2, 'TX' || g, 'payout.success', 'http://127.0.0.1:9/hook', 'v2', '{}', $3, $5,
              now() + interval '10000 days', now() - make_interval(days => $4::int),
              CASE WHEN $3 = 'delivered' THEN now() - make_interval(days => $4::int) END
         FROM generate_series(1, $6::int) g`,
      [prefix, m.merchant_id, state, daysAgo, attemptsEach, count],
    );
    await t.db.query(
      `INSERT INTO webhook_attempts (delivery_id, attempted_at, duration_ms, http_status)
       SELECT d.id, d.created_at, 5, 200 FROM webhook_deliveries d, generate_series(1, $2::int)
        WHERE d.id LIKE $1 || '%'`,
      [prefix, attemptsEach],
    );
  }

  async function left(prefix: string) {
    const { rows } = await t.db.query<{ deliveries: number; attempts: number }>(
      `SELECT (SELECT count(*) FROM webhook_deliveries WHERE id LIKE $1 || '%')::int4 AS deliveries,
              (SELECT count(*) FROM webhook_attempts WHERE delivery_id LIKE $1 || '%')::int4 AS attempts`,
      [prefix],
    );
    return rows[0];
  }

  async function untouched() {
    const { rows } = await t.db.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM ledger_entries) || '/' || (SELECT count(*) FROM wallets) || '/' ||
              (SELECT count(*) FROM merchants) || '/' || (SELECT count(*) FROM audit_log) AS n`,
    );
    return rows[0]?.n;
  }

  beforeAll(async () => {
    clock = movableClock();
    t = await startTestServer(engine, { clock });
    m = await createMerchant(t.url, 'Retained Merchant', '10.00');
    await seed('OLD', 'delivered', 10, 2_345, 2);
    await seed('NEW', 'delivered', 0, 3, 1);
    await seed('FAILED', 'failed', 200, 4, 3);
    await seed('PENDING', 'pending', 200, 2, 1);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('removes only delivered deliveries older than the window, with their attempts, as the clock moves', async () => {
    const before = await untouched();
    // Today: the oldest delivered one is 10 days old, well inside 90.
    expect(await t.server.retention.run()).toMatchObject({ deliveries: 0, attempts: 0 });
    expect(await left('OLD')).toEqual({ deliveries: 2_345, attempts: 4_690 });

    // 85 days on: the ones delivered 10 days ago are 95 days old; in three statements of 1,000.
    clock.advance(85 * DAY);
    expect(await t.server.retention.run()).toMatchObject({ deliveries: 2_345, attempts: 4_690 });
    expect(await left('OLD')).toEqual({ deliveries: 0, attempts: 0 });
    expect(await left('NEW')).toEqual({ deliveries: 3, attempts: 3 });

    // 91 days after today's: those go too; the failed and pending ones, 291 days old, never do.
    clock.advance(6 * DAY);
    expect(await t.server.retention.run()).toMatchObject({ deliveries: 3, attempts: 3 });
    expect(await left('NEW')).toEqual({ deliveries: 0, attempts: 0 });
    expect(await left('FAILED')).toEqual({ deliveries: 4, attempts: 12 });
    expect((await left('PENDING'))?.deliveries).toBe(2);
    expect(await untouched()).toBe(before);
    // What went is counted for the operator's dashboards.
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/^payrail_retention_removed_total\{kind="deliveries"\} 2348$/m);
    expect(metrics).toMatch(/^payrail_retention_removed_total\{kind="attempts"\} 4693$/m);
  });
});

describe('PAYRAIL_RETENTION_DAYS=off', () => {
  it('keeps every delivery however far the clock moves', async () => {
    const clock = movableClock();
    const t = await startTestServer('pglite', { clock, env: { PAYRAIL_RETENTION_DAYS: 'off' } });
    try {
      const m = await createMerchant(t.url, 'Kept Merchant');
      await t.db.query(
        `INSERT INTO webhook_deliveries (id, merchant_id, subject_id, type, url, scheme, snapshot, state,
                                         next_attempt_at, created_at, delivered_at)
         VALUES ('KEPT1', $1, 'TX1', 'payout.success', 'http://127.0.0.1:9/hook', 'v2', '{}', 'delivered',
                 now(), now(), now())`,
        [m.merchant_id],
      );
      clock.advance(10_000 * DAY);
      expect(await t.server.retention.run()).toBeNull();
      const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int4 AS n FROM webhook_deliveries');
      expect(rows[0]?.n).toBe(1);
    } finally {
      await t.close();
    }
  });
});
