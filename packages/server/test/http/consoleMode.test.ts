import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSession, createOperator } from '../support/consoleClient.ts';
import { createMerchant, http, type TestMerchant } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * The console's SANDBOX/LIVE marker comes from the server: a live server says `live` in every answer the console
 * reads at start (the browser tests cover sandbox; this file runs one live server).
 */
describe('console mode on a live server', () => {
  let t: TestServer;
  let merchant: TestMerchant;

  beforeAll(async () => {
    t = await startTestServer('pglite', { env: { PAYRAIL_MODE: 'live' } });
    await createOperator(t.url, 'admin@example.test', 'admin');
    merchant = await createMerchant(t.url, 'Live Merchant');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('answers mode live to the start-up probe, signed out (200, no 401) and signed in', async () => {
    const out = await http(t.url, 'GET', '/console/api/whoami');
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ signed_in: false, mode: 'live' });

    const op = await ConsoleSession.signIn(t.url, 'admin@example.test');
    const me = await op.request('GET', '/console/api/whoami');
    expect(me.body).toMatchObject({ signed_in: true, kind: 'operator', mode: 'live', csrf_token: op.csrf });
    expect((await op.request('GET', '/console/api/session')).body).toMatchObject({ mode: 'live' });

    const mc = await ConsoleSession.merchant(t.url, merchant.api_key, merchant.secret_key);
    const them = await mc.request('GET', '/console/api/whoami');
    expect(them.body).toMatchObject({
      signed_in: true,
      kind: 'merchant',
      merchant: { merchant_id: merchant.merchant_id },
      mode: 'live',
    });
    expect((await mc.request('GET', '/console/api/merchant/session')).body).toMatchObject({ mode: 'live' });
  });
});
