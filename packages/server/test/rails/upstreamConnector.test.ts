import { encryptJson, signBody, type Scheme } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/childServer.ts';
import { FaultProxy } from '../support/faultProxy.ts';
import { admin, createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { adminPayout, payoutRequest, SANDBOX, senderId, shapeOf, waitForStatus } from '../support/payoutFixtures.ts';
import { cli } from '../../../cli/test/support.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

/*
 * The upstream connector end to end: a second Payrail server in sandbox mode plays the upstream provider, over real
 * HTTP, with a proxy between the two that counts what the downstream sends and can drop an answer after the
 * upstream acted on the request. Nothing of the upstream is mocked.
 */

/** Both schemes and both engines, each pairing once (the whole file per pairing costs about 40 s). */
const CASES: { engine: (typeof ENGINES)[number]; scheme: Scheme }[] =
  ENGINES.length > 1
    ? [
        { engine: 'pglite', scheme: 'v2' },
        { engine: 'postgres', scheme: 'v1' },
      ]
    : [
        { engine: 'pglite', scheme: 'v2' },
        { engine: 'pglite', scheme: 'v1' },
      ];

describe.each(CASES)('the upstream connector ($engine, upstream scheme $scheme)', ({ engine, scheme }) => {
  let up: TestServer;
  /** The first upstream server: it owns the database (or schema) the restarted one reuses. */
  let original: TestServer;
  let upPort: number;
  let down: TestServer;
  let proxy: FaultProxy;
  let account: TestMerchant;
  let shop: MerchantClient;
  let shopMerchant: TestMerchant;

  /** Upstream payouts whose sender_id is `id` (the downstream's payout id). */
  const upstreamCopies = async (id: string) => {
    const { rows } = await up.db.query<{ id: string; status: string; utr: string }>(
      'SELECT id, status, utr FROM payouts WHERE sender_id = $1',
      [id],
    );
    return rows;
  };

  const startUpstream = (env: Record<string, string> = {}) =>
    startTestServer(engine, {
      env: { PORT: String(upPort), ...env },
      // A restart keeps the data: PGlite's database is the test's (the server does not close it); on PostgreSQL the
      // new server opens its own pool on the same schema (the old one closed its pool).
      ...(up ? (engine === 'pglite' ? { db: up.db } : { schema: up.schema }) : {}),
    });

  beforeAll(async () => {
    upPort = await freePort();
    up = await startUpstream();
    original = up;
    account = await createMerchant(up.url, 'Payrail Treasury', '5000.00');
    proxy = await new FaultProxy().start();
    proxy.target = up.url;
    down = await startTestServer(engine, {
      env: {
        PAYRAIL_CONNECTOR: 'upstream',
        PAYRAIL_UPSTREAM_URL: `${proxy.url}/api`,
        PAYRAIL_UPSTREAM_API_KEY: account.api_key,
        PAYRAIL_UPSTREAM_SECRET_KEY: account.secret_key,
        PAYRAIL_UPSTREAM_WALLET_ID: account.wallet_id,
        PAYRAIL_UPSTREAM_SCHEME: scheme,
        PAYRAIL_UPSTREAM_WEBHOOK_SECRET: account.webhook_secret,
        PAYRAIL_UPSTREAM_POLL: '100ms,100ms',
        PAYRAIL_UPSTREAM_RETRY_FOR: '10m',
        PAYRAIL_UPSTREAM_TIMEOUT: '3s',
      },
    });
    shopMerchant = await createMerchant(down.url, 'Downstream Shop', '100000.00');
    shop = await MerchantClient.connect(down.url, shopMerchant, 'v2');
  });

  afterAll(async () => {
    await down?.close();
    await proxy?.stop();
    if (up !== original) await up?.close();
    await original?.close();
  });

  const initiate = async (account: string, amount = '100.00', ifsc = SANDBOX.ifsc) => {
    const res = await shop.post(
      '/payout/v1/initiate',
      payoutRequest(shapeOf('v2'), {
        wallet_id: shopMerchant.wallet_id,
        sender_id: senderId('up'),
        amount,
        beneficiary_acc_number: account,
        beneficiary_ifsc: ifsc,
      }),
    );
    expect(res.body.resp_code, JSON.stringify(res.body)).toBe(2000);
    return String(res.data?.transaction_id);
  };

  it('pays through the upstream: SUCCESS with the upstream UTR, one upstream payout per sender_id', async () => {
    const id = await initiate(SANDBOX.success, '250.00');
    const done = await waitForStatus(down.url, id, 'SUCCESS', 15_000);
    const [copy, ...more] = await upstreamCopies(id);
    expect(more).toHaveLength(0);
    expect(copy).toMatchObject({ status: 'SUCCESS' });
    expect(done).toMatchObject({ connector: 'upstream', rail: 'upstream', utr_number: copy?.utr, rail_error: null });
    expect(done.rail_reference).toBe(copy?.id);
    expect(proxy.count('POST /api/payout/v1/initiate')).toBeGreaterThanOrEqual(1);
    // The merchant's own view: SUCCESS with that UTR.
    const status = await shop.get(`/payout/v1/status?transaction_id=${id}`);
    expect(status.data).toMatchObject({ status: 'SUCCESS', utr_number: copy?.utr });
  });

  it('fails and refunds a payout the upstream failed, naming it', async () => {
    const before = (await shop.get(`/payout/v1/balance?wallet_id=${shopMerchant.wallet_id}`)).data?.balance;
    const id = await initiate(SANDBOX.failure, '40.00');
    const done = await waitForStatus(down.url, id, 'REFUNDED', 15_000);
    expect(String(done.status_message)).toMatch(/upstream/i);
    const after = (await shop.get(`/payout/v1/balance?wallet_id=${shopMerchant.wallet_id}`)).data?.balance;
    expect(after).toBe(before);
  });

  it('follows a PENDING payout until the upstream resolves it', async () => {
    const id = await initiate(SANDBOX.pending, '30.00');
    await waitForStatus(down.url, id, 'PENDING', 15_000);
    const [copy] = await upstreamCopies(id);
    const resolved = await admin(up.url, 'POST', `/admin/v1/payouts/${copy?.id}/resolve`, {
      status: 'SUCCESS',
      utr_number: 'UPSTREAMUTR0001',
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    const done = await waitForStatus(down.url, id, 'SUCCESS', 15_000);
    expect(done.utr_number).toBe('UPSTREAMUTR0001');
  });

  it('fails a payout the upstream refuses for good (4013), with the upstream code in its message', async () => {
    const id = await initiate(SANDBOX.verificationFailure, '20.00');
    const done = await waitForStatus(down.url, id, 'REFUNDED', 15_000);
    expect(String(done.status_message)).toContain('4013');
    expect(await upstreamCopies(id)).toHaveLength(0);
  });

  it('waits while the upstream account is short, and pays once it is credited', async () => {
    const id = await initiate(SANDBOX.success, '6000.00');
    const waiting = await eventually(async () => {
      const p = await adminPayout(down.url, id);
      return p.rail_error ? p : null;
    });
    expect(waiting).toMatchObject({ status: 'INITIATED' });
    expect(String(waiting?.rail_error)).toContain('4002');
    expect(
      (await admin(up.url, 'POST', `/admin/v1/wallets/${account.wallet_id}/credits`, { amount: '10000.00' })).status,
    ).toBe(200);
    await waitForStatus(down.url, id, 'SUCCESS', 15_000);
    expect(await upstreamCopies(id)).toHaveLength(1);
  });

  it('fails a payout refused for now for longer than PAYRAIL_UPSTREAM_RETRY_FOR', async () => {
    const id = await initiate(SANDBOX.success, '90000.00');
    await eventually(async () => ((await adminPayout(down.url, id)).rail_error ? true : null));
    // Time moves instead of the test waiting ten minutes: the first temporary refusal is dated 11 minutes ago.
    await down.db.query("UPDATE payouts SET rail_retry_since = now() - interval '11 minutes' WHERE id = $1", [id]);
    const done = await waitForStatus(down.url, id, 'REFUNDED', 20_000);
    expect(String(done.status_message)).toMatch(/4002.*gave up after 600 s/);
    expect(await upstreamCopies(id)).toHaveLength(0);
  });

  it('reads by sender_id after a lost answer instead of submitting again', async () => {
    let dropped = 0;
    proxy.drop = (method, path) => method === 'POST' && path.endsWith('/payout/v1/initiate') && dropped++ === 0;
    const posts = proxy.count('POST /api/payout/v1/initiate');
    const id = await initiate(SANDBOX.success, '15.00');
    await waitForStatus(down.url, id, 'SUCCESS', 15_000);
    proxy.drop = () => false;
    expect(dropped).toBeGreaterThanOrEqual(1);
    expect(proxy.count('POST /api/payout/v1/initiate') - posts).toBe(1);
    expect(await upstreamCopies(id)).toHaveLength(1);
  });

  it('survives the upstream restarting with a new signing key (one 4001, token refreshed)', async () => {
    await up.server.close();
    const id = await initiate(SANDBOX.success, '12.00');
    // While the upstream is down the payout waits; then it starts again, and old tokens are no longer valid.
    await eventually(async () => ((await adminPayout(down.url, id)).rail_error ? true : null));
    up = await startUpstream({ PAYRAIL_JWT_SECRET: 'another-signing-key-of-at-least-32-characters' });
    proxy.target = up.url;
    await waitForStatus(down.url, id, 'SUCCESS', 20_000);
    expect(await upstreamCopies(id)).toHaveLength(1);
  });

  it('applies verified upstream webhooks; refuses forged ones with 401 and changes nothing', async () => {
    const forged = await http(down.url, 'POST', '/psp/v1/upstream/webhook', {
      rawBody: JSON.stringify({ id: 'EV1', type: 'payout.success', data: 'abc' }),
      headers: { 'content-type': 'application/json', 'x-paywize-signature': `sha256=${'0'.repeat(64)}` },
    });
    expect(forged.status).toBe(401);
    // The upstream calls back to the downstream's public URL: its deliveries arrive and are answered 200.
    const { rows } = await up.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM webhook_deliveries WHERE url LIKE '%/psp/v1/upstream/webhook' AND last_status = 200",
    );
    expect(Number(rows[0]?.n)).toBeGreaterThan(0);
  });

  it('takes a return made at the upstream, by its webhook: SUCCESS → REFUNDED, money back once', async () => {
    const id = await initiate(SANDBOX.success, '77.00');
    await waitForStatus(down.url, id, 'SUCCESS', 15_000);
    const before = (await shop.get(`/payout/v1/balance?wallet_id=${shopMerchant.wallet_id}`)).data?.balance;
    const [copy] = await upstreamCopies(id);
    const returned = await admin(up.url, 'POST', `/admin/v1/payouts/${copy?.id}/return`, { reason: 'Account closed' });
    expect(returned.status, JSON.stringify(returned.body)).toBe(200);
    const done = await waitForStatus(down.url, id, 'REFUNDED', 15_000);
    expect(String(done.status_message)).toMatch(/upstream/i);
    // The upstream (another Payrail) says "Returned by the beneficiary bank: …" itself: said once, not twice.
    expect(String(done.status_message).split('Returned by the beneficiary bank').length - 1).toBe(1);
    expect(String(done.status_message)).toContain('Account closed');
    const after = (await shop.get(`/payout/v1/balance?wallet_id=${shopMerchant.wallet_id}`)).data?.balance;
    expect(Number(after) - Number(before)).toBeCloseTo(77, 2);
  });

  it('answers a replayed (older) upstream event 200 and changes nothing', async () => {
    const id = await initiate(SANDBOX.success, '11.00');
    const done = await waitForStatus(down.url, id, 'SUCCESS', 15_000);
    // A genuine event, signed with the secret, but older news than what is recorded: PROCESSING after SUCCESS.
    const data = encryptJson({ sender_id: id, status: 'PROCESSING', status_message: '', utr_number: '' }, scheme, {
      apiKey: account.api_key,
      secretKey: account.secret_key,
    });
    const body = JSON.stringify({
      id: 'EV-replay',
      type: 'payout.processing',
      created_at: new Date().toISOString(),
      data,
    });
    const res = await http(down.url, 'POST', '/psp/v1/upstream/webhook', {
      rawBody: body,
      headers: { 'content-type': 'application/json', 'x-signature': signBody(account.webhook_secret, body) },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ result: 'unchanged', transactionId: id });
    expect(await adminPayout(down.url, id)).toMatchObject({ status: 'SUCCESS', utr_number: done.utr_number });
  });

  it('refuses a signed event about another transfer or another amount than the one sent: 200 refused, an exception, nothing moves', async () => {
    const id = await initiate(SANDBOX.success, '12.00');
    const done = await waitForStatus(down.url, id, 'SUCCESS', 15_000);
    const [copy] = await upstreamCopies(id);
    const send = async (data: Record<string, unknown>) => {
      const body = JSON.stringify({
        id: `EV-${Math.random().toString(36).slice(2)}`,
        type: 'payout.refunded',
        created_at: new Date().toISOString(),
        data: encryptJson(data, scheme, { apiKey: account.api_key, secretKey: account.secret_key }),
      });
      return http(down.url, 'POST', '/psp/v1/upstream/webhook', {
        rawBody: body,
        headers: { 'content-type': 'application/json', 'x-signature': signBody(account.webhook_secret, body) },
      });
    };
    const base = { sender_id: id, status: 'REFUNDED', status_message: 'Returned', utr_number: done.utr_number };
    const otherTransfer = await send({ ...base, transaction_id: 'PT0000000000000000000000000X', amount: '12.00' });
    const otherAmount = await send({ ...base, transaction_id: copy?.id, amount: '1.00' });
    for (const res of [otherTransfer, otherAmount]) {
      expect([res.status, res.body.result], JSON.stringify(res.body)).toEqual([200, 'refused']);
      const exception = await admin(down.url, 'GET', `/admin/v1/exceptions/${String(res.body.exception_id)}`);
      expect(exception.body).toMatchObject({ source: 'upstream_webhook', payout_id: id, state: 'open' });
    }
    expect(
      (await admin(down.url, 'GET', `/admin/v1/exceptions/${String(otherAmount.body.exception_id)}`)).body.kind,
    ).toBe('return_mismatch');
    expect(await adminPayout(down.url, id)).toMatchObject({ status: 'SUCCESS', utr_number: done.utr_number });
  });

  it('lists the upstream connector with its treasury', async () => {
    const res = await admin(down.url, 'GET', '/admin/v1/connectors');
    expect(res.status).toBe(200);
    const connectors = res.body.connectors as { name: string; routes: string[]; treasury: Record<string, string> }[];
    const upstream = connectors.find((c) => c.name === 'upstream') as (typeof connectors)[number];
    expect(upstream.routes).toEqual(['IMPS', 'NEFT', 'RTGS']);
    expect(upstream.treasury).toMatchObject({ upstream_balance: expect.stringMatching(/^\d+\.\d{2}$/) });
    expect(upstream.treasury.coverage).toMatch(/^\d+\.\d{4}$/);
    // The CLI shows the same (payrail connectors), as a table and as JSON.
    const env = { PAYRAIL_URL: down.url, PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
    const [human, json] = await Promise.all([cli(['connectors'], env), cli(['connectors', '--json'], env)]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/upstream\s+IMPS,NEFT,RTGS\s+answering/);
    expect(json.json.connectors.map((c: { name: string }) => c.name).sort()).toEqual(['manual', 'sandbox', 'upstream']);
    const metrics = await fetch(`${down.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/payrail_connector_up\{connector="upstream"\} [01]/);
    expect(metrics).toMatch(/payrail_treasury_coverage_ratio \d/);
  });
});
