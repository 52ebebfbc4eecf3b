import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { admin, createMerchant, http, MerchantClient } from '../support/merchantClient.ts';
import { payoutRequest, SANDBOX } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

/**
 * PAYRAIL_WORKER=off (docs/operator/backups.md): a restored copy serves requests, reads included, but moves no money
 * until told to: no payout step reaches a connector, no webhook is delivered. An instance with the worker on, on
 * the same database, then carries on what waited.
 */
describe('PAYRAIL_WORKER', () => {
  it('is on unless set to off (true, false, 1, 0 too); anything else is refused by name', () => {
    expect(loadConfig({}).worker).toBe(true);
    expect(loadConfig({ PAYRAIL_WORKER: 'off' }).worker).toBe(false);
    expect(loadConfig({ PAYRAIL_WORKER: 'OFF' }).worker).toBe(false);
    expect(loadConfig({ PAYRAIL_WORKER: 'false' }).worker).toBe(false);
    expect(loadConfig({ PAYRAIL_WORKER: 'on' }).worker).toBe(true);
    expect(() => loadConfig({ PAYRAIL_WORKER: 'paused' })).toThrow(/PAYRAIL_WORKER.*expected on or off/);
  });
});

describe.each(ENGINES)('PAYRAIL_WORKER=off on %s', (engine) => {
  let off: TestServer;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    off = await startTestServer(engine, { env: { PAYRAIL_WORKER: 'off' } });
  });
  afterAll(async () => {
    await off?.close();
    await receiver?.stop();
  });

  it('serves reads and takes requests, but steps no payout and delivers no webhook until a worker runs', async () => {
    expect((await http(off.url, 'GET', '/healthz')).body).toMatchObject({ worker: 'off' });
    const m = await createMerchant(off.url, 'Restored Copy', '1000.00');
    const client = await MerchantClient.connect(off.url, m, 'v2');
    const initiated = await client.post(
      '/payout/v1/initiate',
      payoutRequest('nested', {
        wallet_id: m.wallet_id,
        amount: '10.00',
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: SANDBOX.success,
        callback_url: `${receiver.url}/hooks`,
      }),
    );
    expect(initiated.body.resp_code).toBe(2000);
    const id = initiated.data?.transaction_id as string;

    // The sandbox steps every 50 ms here: a worker would have made it SUCCESS many times over.
    await sleep(1_500);
    const status = await client.get(`/payout/v1/status?transaction_id=${id}`);
    expect(status.data).toMatchObject({ status: 'INITIATED' });
    expect((await admin(off.url, 'GET', `/admin/v1/payouts/${id}`)).body).toMatchObject({ status: 'INITIATED' });
    expect((await admin(off.url, 'GET', `/admin/v1/merchants/${m.merchant_id}`)).status).toBe(200);
    expect(receiver.received).toHaveLength(0);

    // Told to: an instance with the worker on, on the same database, moves it.
    const on = await startTestServer(engine, {
      db: engine === 'pglite' ? off.db : undefined,
      ...(off.schema ? { schema: off.schema } : {}),
    });
    try {
      await eventually(
        async () => (await client.get(`/payout/v1/status?transaction_id=${id}`)).data?.status === 'SUCCESS',
      );
      await eventually(() => receiver.received.length > 0);
    } finally {
      await on.close();
    }
  });
});
