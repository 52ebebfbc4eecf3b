import { Writable } from 'node:stream';
import { encryptJson } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { admin, createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

/** Collects every log line the server writes. */
class MemoryLog extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, callback: () => void) {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    callback();
  }
  get text() {
    return this.lines.join('\n');
  }
}

describe.each(ENGINES)('logs on %s', (engine) => {
  let t: TestServer;
  const log = new MemoryLog();
  /** Every secret the server saw or issued during the test. */
  const secrets = new Set<string>();
  let m: TestMerchant;

  beforeAll(async () => {
    t = await startTestServer(engine, { env: { LOG_LEVEL: 'debug' }, logger: createLogger('debug', log) });
    secrets.add(TEST_ADMIN_TOKEN);

    m = await createMerchant(t.url, 'Logged Merchant', '500.00');
    for (const s of [m.api_key, m.secret_key, m.webhook_secret, m.webhook_secret.slice('whsec_'.length)]) {
      secrets.add(s);
    }
    const keys = { apiKey: m.api_key, secretKey: m.secret_key };

    // Tokens in both schemes; the V1 request carries an encrypted payload.
    for (const scheme of ['v2', 'v1'] as const) {
      const c = await MerchantClient.connect(t.url, m, scheme);
      secrets.add(c.token);
      for (const part of c.token.split('.')) secrets.add(part);
      // A merchant request with the token.
      await c.get(`/payout/v1/balance?wallet_id=${m.wallet_id}`);
    }
    const v1Payload = encryptJson(keys, 'v1', keys);
    secrets.add(v1Payload);
    await http(t.url, 'POST', '/v1/auth/clients/token', {
      body: { payload: v1Payload },
      headers: { 'x-api-key': m.api_key },
    });

    // Failures: wrong secret, wrong admin token, a body that is not JSON, an unknown route.
    await http(t.url, 'POST', '/v1/auth/client-token', { body: { apiKey: m.api_key, secretKey: 'WrongSecret12345' } });
    secrets.add('WrongSecret12345');
    await http(t.url, 'GET', `/admin/v1/merchants/${m.merchant_id}`, {
      headers: { authorization: 'Bearer guessed-admin-token-123' },
    });
    secrets.add('guessed-admin-token-123');
    await http(t.url, 'POST', '/v1/auth/client-token', {
      rawBody: `{"apiKey":"${m.api_key}","secretKey":"${m.secret_key}"`,
      headers: { 'content-type': 'application/json' },
    });
    await http(t.url, 'GET', '/no/such/route');

    // Rotation answers new secrets.
    const rotated = await admin(t.url, 'POST', `/admin/v1/merchants/${m.merchant_id}/credentials/rotate`);
    secrets.add(rotated.body.api_key as string);
    secrets.add(rotated.body.secret_key as string);
    await http(t.url, 'POST', '/v1/auth/client-token', {
      body: { apiKey: rotated.body.api_key, secretKey: rotated.body.secret_key },
    });
    await admin(t.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, { daily_limit: '100.00' });
  });
  afterAll(() => t.close());

  it('logged the requests (so the capture works)', () => {
    expect(log.lines.length).toBeGreaterThan(10);
    const entries = log.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const urls = entries.map((e) => (e.req as { url?: string } | undefined)?.url).filter(Boolean);
    expect(urls).toContain('/admin/v1/merchants');
    expect(urls).toContain('/v1/auth/client-token');
    expect(urls).toContain('/v1/auth/clients/token');
    expect(t.server.app.log.level).toBe('debug');
  });

  it('contains no api key, secret key, webhook secret, token, payload or admin token', () => {
    expect(secrets.size).toBeGreaterThan(10);
    const text = log.text;
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThanOrEqual(8);
      expect(text.includes(secret), `a secret (${secret.slice(0, 4)}…) appears in the logs`).toBe(false);
    }
    // No request headers that could carry one either.
    expect(text).not.toMatch(/"authorization"\s*:\s*"(?!\[redacted\])/i);
    expect(text).not.toMatch(/"x-api-key"\s*:\s*"(?!\[redacted\])/i);
  });
});
