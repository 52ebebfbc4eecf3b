import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { isPublicRoute } from '../../src/http/internalListener.ts';
import { admin, createMerchant, http, MerchantClient } from '../support/merchantClient.ts';
import { initiateOk, payoutRequest } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

const notFound = (res: { status: number; body: Record<string, unknown> }) => [
  res.status,
  (res.body.error as { code?: string } | undefined)?.code,
];

describe('PAYRAIL_ADMIN_LISTEN and PAYRAIL_OPENAPI as settings', () => {
  it('reads host:port (IPv6 in brackets, port 0 for a free one) and refuses anything else', () => {
    expect(loadConfig({ PAYRAIL_ADMIN_LISTEN: '10.0.0.5:9090' }).adminListen).toEqual({ host: '10.0.0.5', port: 9090 });
    expect(loadConfig({ PAYRAIL_ADMIN_LISTEN: '[::1]:9090' }).adminListen).toEqual({ host: '::1', port: 9090 });
    expect(loadConfig({ PAYRAIL_ADMIN_LISTEN: 'localhost:0' }).adminListen).toEqual({ host: 'localhost', port: 0 });
    expect(loadConfig({}).adminListen).toBeUndefined();
    for (const raw of ['9090', ':9090', '10.0.0.5', '10.0.0.5:99999', 'a b:1', '::1:9090']) {
      expect(() => loadConfig({ PAYRAIL_ADMIN_LISTEN: raw }), raw).toThrow(ConfigError);
    }
    expect(loadConfig({}).openapi).toBe(true);
    expect(loadConfig({ PAYRAIL_OPENAPI: 'off' }).openapi).toBe(false);
    expect(() => loadConfig({ PAYRAIL_OPENAPI: 'maybe' })).toThrow(ConfigError);
  });

  it('keeps on the public listener only the merchant API, payment pages, PSP notifications and the probes', () => {
    for (const url of [
      '/v1/auth/client-token',
      '/payout/v1/initiate',
      '/collection/v1/initiate',
      '/settlement/v1/initiate',
    ])
      expect(isPublicRoute(url), url).toBe(true);
    for (const url of ['/pay/:token', '/psp/v1/upstream/webhook', '/healthz', '/readyz', '/sandbox/v1/x'])
      expect(isPublicRoute(url), url).toBe(true);
    for (const url of [
      '/admin/v1/merchants',
      '/console',
      '/console/api/session',
      '/docs',
      '/openapi.json',
      '/metrics',
      '/',
    ])
      expect(isPublicRoute(url), url).toBe(false);
  });
});

describe('PAYRAIL_OPENAPI=off', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer('pglite', { env: { PAYRAIL_OPENAPI: 'off' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves neither /docs nor the document, and every route still answers', async () => {
    for (const path of ['/docs', '/docs/', '/docs/json', '/openapi.json']) {
      expect(notFound(await http(t.url, 'GET', path)), path).toEqual([404, 'route_not_found']);
    }
    expect((await http(t.url, 'GET', '/healthz')).status).toBe(200);
    expect((await admin(t.url, 'GET', '/admin/v1/merchants')).status).toBe(200);
  });
});

describe.each(ENGINES)('PAYRAIL_ADMIN_LISTEN (%s)', (engine) => {
  let t: TestServer;
  let internal: string;
  const auth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_ADMIN_LISTEN: '127.0.0.1:0' } });
    internal = t.server.adminAddress() as string;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('listens on a second address', () => {
    expect(internal).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(internal).not.toBe(t.url);
  });

  it('answers 404 route_not_found on the public listener for the admin API, the console, the docs and /metrics', async () => {
    const paths = ['/admin/v1/merchants', '/console', '/console/', '/docs', '/openapi.json', '/metrics', '/'];
    for (const path of paths) {
      expect(notFound(await http(t.url, 'GET', path, { headers: auth })), path).toEqual([404, 'route_not_found']);
    }
    // A change through the admin API is refused before anything happens (no merchant is created).
    const create = await http(t.url, 'POST', '/admin/v1/merchants', { body: { name: 'Nope' }, headers: auth });
    expect(notFound(create)).toEqual([404, 'route_not_found']);
    expect((await admin(internal, 'GET', '/admin/v1/merchants')).body.data).toEqual([]);
    // A console sign-in too.
    const signIn = await http(t.url, 'POST', '/console/api/session', { body: { email: 'a@b.c', password: 'x' } });
    expect(notFound(signIn)).toEqual([404, 'route_not_found']);
  });

  it('serves the admin API, the console, the docs and /metrics on the internal listener', async () => {
    expect((await admin(internal, 'GET', '/admin/v1/merchants')).status).toBe(200);
    const console = await fetch(`${internal}/console/`);
    expect(console.status).toBe(200);
    expect(console.headers.get('content-type')).toMatch(/text\/html/);
    expect((await fetch(`${internal}/openapi.json`)).status).toBe(200);
    expect(await (await fetch(`${internal}/metrics`)).text()).toContain('payrail_http_request_duration_seconds');
  });

  it('serves merchants and the probes on the public listener: a merchant made inside pays out outside', async () => {
    for (const path of ['/healthz', '/readyz']) expect((await http(t.url, 'GET', path)).status, path).toBe(200);
    const merchant = await createMerchant(internal, 'Split listeners', '1000.00');
    const client = await MerchantClient.connect(t.url, merchant, 'v2');
    const payout = await initiateOk(client, payoutRequest('nested', { wallet_id: merchant.wallet_id }));
    expect(payout.transaction_id).toMatch(/^PT/);
    // The /api spelling of the merchant API is public too.
    const status = await http(t.url, 'POST', '/api/v1/auth/client-token', {
      body: { apiKey: merchant.api_key, secretKey: merchant.secret_key },
    });
    expect(status.status).toBe(200);
  });

  it('closes both listeners', async () => {
    await t.close();
    await expect(fetch(`${internal}/healthz`)).rejects.toThrow();
    t = undefined as unknown as TestServer;
  });
});
