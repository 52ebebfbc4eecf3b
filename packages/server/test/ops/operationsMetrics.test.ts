import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedMerchant, initiateOk, payoutRequest, type Funded } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

const scrape = async (url: string) => (await fetch(`${url}/metrics`)).text();

/** The value of a sample without labels (`name 3`), or undefined when the metric has no sample. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

/**
 * The gauges an operator alerts on (docs/operator/monitoring.md) say what is true: no coverage 0 without an
 * upstream, no "up" for a connector that routes nothing, and the backlog in the database as it is.
 */
describe.each(ENGINES)('operations metrics (%s)', (engine) => {
  let t: TestServer;
  let f: Funded;

  beforeAll(async () => {
    // No worker: what is queued stays queued, so the backlog gauges can be read exactly.
    t = await startTestServer(engine, { env: { PAYRAIL_WORKER: 'off', PAYRAIL_STUCK_PAYOUT_MINUTES: '30' } });
    f = await fundedMerchant(t.url, 'v2');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('leaves the treasury coverage and Redis absent when there is none, and reports only routed connectors', async () => {
    const text = await scrape(t.url);
    // No connector with an account of its own: the admin API says null, so there is no sample (not a false 0).
    expect(text).toContain('# TYPE payrail_treasury_coverage_ratio gauge');
    expect(sample(text, 'payrail_treasury_coverage_ratio')).toBeUndefined();
    // No Redis configured: nothing to report.
    expect(sample(text, 'payrail_redis_up')).toBeUndefined();
    // Sandbox mode: every mode goes to the sandbox; `manual` is there but routes nothing.
    expect(text).toMatch(/^payrail_connector_up\{connector="sandbox"\} 1$/m);
    expect(text).not.toContain('connector="manual"');
  });

  it('counts due jobs, due webhook deliveries and stuck payouts', async () => {
    let text = await scrape(t.url);
    expect([
      sample(text, 'payrail_jobs_due'),
      sample(text, 'payrail_webhook_deliveries_due'),
      sample(text, 'payrail_payouts_stuck'),
    ]).toEqual([0, 0, 0]);

    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const payout = await initiateOk(f.client, payoutRequest('nested', { wallet_id: f.merchant.wallet_id }));
      ids.push(payout.transaction_id as string);
    }
    // Each initiation queued its first step (due one sandbox step later); with the worker off nobody starts it.
    await eventually(async () => sample(await scrape(t.url), 'payrail_jobs_due') === 3);

    // One delivery due now, one due in an hour (not backlog yet), one delivered (not backlog).
    const delivery = (id: string, state: string, due: string) =>
      t.db.query(
        `INSERT INTO webhook_deliveries (id, merchant_id, subject_id, type, url, scheme, snapshot, state, next_attempt_at,
                                         created_at)
         VALUES ($1, $2, $3, 'payout.status', 'http://127.0.0.1:9/hook', 'v2', '{}', $4, ${due}, now())`,
        [id, f.merchant.merchant_id, ids[0], state],
      );
    await delivery('WD-due', 'pending', `now() - interval '1 second'`);
    await delivery('WD-later', 'pending', `now() + interval '1 hour'`);
    await delivery('WD-done', 'delivered', `now() - interval '1 hour'`);
    // Two payouts sent to the bank: one just now, one whose status has not moved for 31 minutes (threshold 30).
    await t.db.query(`UPDATE payouts SET status = 'PROCESSING' WHERE id = ANY($1)`, [ids.slice(0, 2)]);
    await t.db.query(`UPDATE payouts SET updated_at = now() - interval '31 minutes' WHERE id = $1`, [ids[0]]);

    text = await scrape(t.url);
    expect(sample(text, 'payrail_webhook_deliveries_due')).toBe(1);
    expect(sample(text, 'payrail_payouts_stuck')).toBe(1);
    // PENDING counts too.
    await t.db.query(`UPDATE payouts SET status = 'PENDING', updated_at = now() - interval '2 hours' WHERE id = $1`, [
      ids[1],
    ]);
    expect(sample(await scrape(t.url), 'payrail_payouts_stuck')).toBe(2);
  });
});

describe.skipIf(!process.env.TEST_REDIS_URL)('payrail_redis_up', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('is 1 while the configured Redis answers, 0 when it does not', async () => {
    const reachable = await startTestServer('pglite', { env: { REDIS_URL: process.env.TEST_REDIS_URL as string } });
    servers.push(reachable);
    // Port 9 (discard) on loopback: nothing listens there, so every connection is refused.
    const refused = await startTestServer('pglite', { env: { REDIS_URL: 'redis://127.0.0.1:9' } });
    servers.push(refused);
    const up = async (url: string) => sample(await scrape(url), 'payrail_redis_up');
    // The client connects in the background after the start.
    for (let i = 0; i < 100 && (await up(reachable.url)) !== 1; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await up(reachable.url)).toBe(1);
    expect(await up(refused.url)).toBe(0);
  });
});
