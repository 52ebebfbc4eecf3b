import { createHmac } from 'node:crypto';
import { decryptJsonObject, DecryptError, encryptJson, encryptV1, encryptV2 } from '@payrail/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

const keysOf = (m: TestMerchant) => ({ apiKey: m.api_key, secretKey: m.secret_key });
const UNAUTHORIZED = { respCode: 4001, respMessage: 'Unauthorized access: invalid API key or secret key' };

function decodeJwt(token: string) {
  const [header, payload, signature] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header as string, 'base64url').toString('utf8')) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(payload as string, 'base64url').toString('utf8')) as Record<string, unknown>,
    signature: signature as string,
  };
}

const swapFirstLetterCase = (text: string) =>
  text.replace(/[A-Za-z]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe.each(ENGINES)('tokens on %s', (engine) => {
  let t: TestServer;
  let m: TestMerchant;
  beforeAll(async () => {
    // The per-address failure limit is tested where it is the subject; here it must not interfere.
    t = await startTestServer(engine, { env: { PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: '100000' } });
    m = await createMerchant(t.url);
  });
  afterAll(() => t.close());

  const v2 = (body: unknown, headers: Record<string, string> = {}) =>
    http(t.url, 'POST', '/v1/auth/client-token', { body, headers });
  const v1 = (body: unknown, apiKey?: string) =>
    http(t.url, 'POST', '/v1/auth/clients/token', {
      body,
      headers: apiKey === undefined ? {} : { 'x-api-key': apiKey },
    });
  const v1Payload = (plain: unknown, encryptWith: TestMerchant = m) => encryptJson(plain, 'v1', keysOf(encryptWith));
  const balanceWith = (token: string, walletId = m.wallet_id) =>
    http(t.url, 'GET', `/payout/v1/balance?wallet_id=${walletId}`, { headers: { authorization: `Bearer ${token}` } });

  const expectUnauthorized = (res: { status: number; body: Record<string, unknown> }) => {
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  };

  describe('V2: POST /v1/auth/client-token', () => {
    it('answers the documented envelope; data decrypts with V2 (and not with V1) to {token}', async () => {
      const res = await v2(keysOf(m));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        respCode: 2000,
        respMessage: 'Token generated',
        data: expect.any(String),
        expiresIn: 300,
        tokenType: 'Bearer',
      });
      const data = decryptJsonObject(res.body.data, 'v2', keysOf(m));
      expect(Object.keys(data)).toEqual(['token']);
      expect(() => decryptJsonObject(res.body.data, 'v1', keysOf(m))).toThrow(DecryptError);
    });

    it.each([
      ['wrong secret', () => ({ apiKey: m.api_key, secretKey: 'x'.repeat(16) })],
      [
        'secret with one letter in another case',
        () => ({ apiKey: m.api_key, secretKey: swapFirstLetterCase(m.secret_key) }),
      ],
      ['secret with a suffix', () => ({ apiKey: m.api_key, secretKey: `${m.secret_key}x` })],
      ['secret prefix', () => ({ apiKey: m.api_key, secretKey: m.secret_key.slice(0, 15) })],
      ['keys swapped', () => ({ apiKey: m.secret_key, secretKey: m.api_key })],
      ['unknown api key', () => ({ apiKey: 'A'.repeat(32), secretKey: m.secret_key })],
      ['empty strings', () => ({ apiKey: '', secretKey: '' })],
      ['missing secret', () => ({ apiKey: m.api_key })],
      ['missing api key', () => ({ secretKey: m.secret_key })],
      ['numbers', () => ({ apiKey: 1, secretKey: 2 })],
      ['nulls', () => ({ apiKey: null, secretKey: null })],
      ['an array', () => [m.api_key, m.secret_key]],
      ['V1-style payload', () => ({ payload: v1Payload(keysOf(m)) })],
      ['a huge key (under the 64 KiB body limit)', () => ({ apiKey: 'k'.repeat(60_000), secretKey: m.secret_key })],
    ])('refuses %s with 4001', async (_label, body) => {
      expectUnauthorized(await v2(body()));
    });

    it('refuses the api key of one merchant with the secret of another', async () => {
      const other = await createMerchant(t.url, 'Other');
      expectUnauthorized(await v2({ apiKey: m.api_key, secretKey: other.secret_key }));
    });
  });

  describe('V1: POST /v1/auth/clients/token', () => {
    // A refused V1 request counts against the key in X-Api-Key (failed-token throttle, 10 per key), so each
    // test gets a merchant of its own instead of piling all these refusals onto one key.
    beforeEach(async () => {
      m = await createMerchant(t.url);
    });

    it('answers the documented envelope; data decrypts with V1 (and not with V2) to {token}', async () => {
      const res = await v1({ payload: v1Payload(keysOf(m)) }, m.api_key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        respCode: 2000,
        respMessage: 'Token generated',
        data: expect.any(String),
        expiresIn: 300,
        tokenType: 'Bearer',
      });
      expect(Object.keys(decryptJsonObject(res.body.data, 'v1', keysOf(m)))).toEqual(['token']);
      expect(() => decryptJsonObject(res.body.data, 'v2', keysOf(m))).toThrow(DecryptError);
    });

    it('needs no X-Api-Key: the server finds the merchant whose keys decrypt the payload (docs/merchant/authentication.md)', async () => {
      const res = await v1({ payload: v1Payload(keysOf(m)) });
      expect(res.status).toBe(200);
      expect(Object.keys(decryptJsonObject(res.body.data, 'v1', keysOf(m)))).toEqual(['token']);
    });

    it('refuses an X-Api-Key that is not the merchant the payload was encrypted for', async () => {
      const other = await createMerchant(t.url, 'Other V1');
      expectUnauthorized(await v1({ payload: v1Payload(keysOf(m)) }, other.api_key));
      expectUnauthorized(await v1({ payload: v1Payload(keysOf(m)) }, 'B'.repeat(32)));
    });

    it('refuses a payload whose apiKey differs from X-Api-Key, even with the right secret', async () => {
      const other = await createMerchant(t.url, 'Other V1 b');
      expectUnauthorized(
        await v1({ payload: v1Payload({ apiKey: other.api_key, secretKey: m.secret_key }) }, m.api_key),
      );
      expectUnauthorized(await v1({ payload: v1Payload({ secretKey: m.secret_key }) }, m.api_key));
    });

    it('refuses a payload with the wrong secretKey', async () => {
      expectUnauthorized(await v1({ payload: v1Payload({ apiKey: m.api_key, secretKey: 'y'.repeat(16) }) }, m.api_key));
    });

    it.each([
      ['garbage text', () => 'garbage!!'],
      ['empty string', () => ''],
      ['valid base64 of random bytes', () => Buffer.alloc(48, 7).toString('base64')],
      [
        'truncated ciphertext',
        () =>
          Buffer.from(v1Payload(keysOf(m)), 'base64')
            .subarray(0, 40)
            .toString('base64'),
      ],
      ['V2 ciphertext', () => encryptJson(keysOf(m), 'v2', keysOf(m))],
      ['V1 of non-JSON', () => encryptV1('apiKey=x', keysOf(m))],
      ['V1 of a JSON array', () => encryptV1(JSON.stringify([m.api_key, m.secret_key]), keysOf(m))],
      ['V2-encrypted with the right keys', () => encryptV2(JSON.stringify(keysOf(m)), keysOf(m))],
      ['a number', () => 42],
      ['null', () => null],
      ['an object', () => ({ apiKey: m.api_key, secretKey: m.secret_key })],
    ])('refuses a payload that is %s with 4001', async (_label, payload) => {
      expectUnauthorized(await v1({ payload: payload() }, m.api_key));
    });

    it('refuses a body without payload or credentials with 4001', async () => {
      expectUnauthorized(await v1({}, m.api_key));
      expectUnauthorized(await v1({}));
    });
  });

  describe('V1 path with plain credentials (as the live provider takes them)', () => {
    const tokenScheme = (res: { body: Record<string, unknown> }, keys = keysOf(m)) => {
      for (const scheme of ['v2', 'v1'] as const) {
        try {
          return { scheme, token: String(decryptJsonObject(res.body.data, scheme, keys).token) };
        } catch {
          // not this scheme
        }
      }
      throw new Error('data opens with neither scheme');
    };

    it.each([
      ['api_key / secret_key', () => ({ api_key: m.api_key, secret_key: m.secret_key })],
      ['apiKey / secretKey', () => keysOf(m)],
    ])('issues a token for %s whose scheme is the default_scheme, v2 by default', async (_label, body) => {
      const res = await v1(body());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ respCode: 2000, respMessage: 'Token generated', tokenType: 'Bearer' });
      const { scheme, token } = tokenScheme(res);
      expect(scheme).toBe('v2');
      expect(decodeJwt(token).payload.scheme).toBe('v2');
      expect((await balanceWith(token)).body.resp_code).toBe(2000);
    });

    it("follows the merchant's default_scheme once an operator sets it to v1 (admin PATCH, shown in the view)", async () => {
      const own = await createMerchant(t.url, 'Default V1');
      const patch = (value: unknown) =>
        http(t.url, 'PATCH', `/admin/v1/merchants/${own.merchant_id}`, {
          body: { default_scheme: value },
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        });
      expect((await patch('v3')).status).toBe(400);
      const patched = await patch('v1');
      expect(patched.status).toBe(200);
      expect(patched.body.default_scheme).toBe('v1');
      const shown = await http(t.url, 'GET', `/admin/v1/merchants/${own.merchant_id}`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      expect(shown.body.default_scheme).toBe('v1');
      const res = await v1({ api_key: own.api_key, secret_key: own.secret_key });
      const { scheme, token } = tokenScheme(res, keysOf(own));
      expect(scheme).toBe('v1');
      expect(decodeJwt(token).payload.scheme).toBe('v1');
      // The encrypted form is V1 whatever the setting says, and V2's own path stays V2.
      expect(decodeJwt(tokenScheme(await v2(keysOf(own)), keysOf(own)).token).payload.scheme).toBe('v2');
    });

    it.each([
      ['mixed spellings', () => ({ api_key: m.api_key, secretKey: m.secret_key })],
      ['mixed the other way', () => ({ apiKey: m.api_key, secret_key: m.secret_key })],
      ['both spellings', () => ({ ...keysOf(m), api_key: m.api_key, secret_key: m.secret_key })],
      ['wrong secret', () => ({ api_key: m.api_key, secret_key: 'x'.repeat(16) })],
      ['unknown key', () => ({ api_key: 'A'.repeat(32), secret_key: m.secret_key })],
      ['missing secret', () => ({ api_key: m.api_key })],
      ['numbers', () => ({ api_key: 1, secret_key: 2 })],
    ])('refuses %s with 4001', async (_label, body) => {
      expectUnauthorized(await v1(body()));
    });

    it('ignores plain fields beside a payload (the encrypted form decides)', async () => {
      expectUnauthorized(await v1({ payload: 'bm90IGVuY3J5cHRlZA==', ...keysOf(m) }));
      const res = await v1({ payload: v1Payload(keysOf(m)), api_key: 'A'.repeat(32), secret_key: 'nope' });
      expect(tokenScheme(res).scheme).toBe('v1');
    });

    it('needs an X-Api-Key, when sent, to name the same merchant', async () => {
      const other = await createMerchant(t.url, 'Other Header');
      expect((await v1({ api_key: m.api_key, secret_key: m.secret_key }, m.api_key)).status).toBe(200);
      expectUnauthorized(await v1({ api_key: m.api_key, secret_key: m.secret_key }, other.api_key));
      expectUnauthorized(await v1({ api_key: m.api_key, secret_key: m.secret_key }, ''));
    });

    it('counts its failures toward the failed-token throttle of the key', async () => {
      const victim = await createMerchant(t.url, 'Plain Guessed');
      for (let i = 0; i < 10; i++) {
        expectUnauthorized(await v1({ api_key: victim.api_key, secret_key: `guess${i}`.padEnd(16, '0') }));
      }
      const locked = await v1({ api_key: victim.api_key, secret_key: victim.secret_key });
      expect(locked.status).toBe(429);
      expect(locked.body.respCode).toBe(4290);
      // The same key is locked on the V2 path too: one counter per key.
      expect((await v2(keysOf(victim))).status).toBe(429);
    });
  });

  describe('request bodies that are not JSON objects', () => {
    it.each([
      ['not JSON', '{"apiKey": '],
      ['empty', ''],
      ['JSON null', 'null'],
      ['JSON string', '"text"'],
      ['JSON array', '[]'],
    ])('answers 4001 in the token envelope for a body that is %s', async (_label, rawBody) => {
      for (const path of ['/v1/auth/client-token', '/v1/auth/clients/token']) {
        const res = await http(t.url, 'POST', path, {
          rawBody,
          headers: { 'content-type': 'application/json', 'x-api-key': m.api_key },
        });
        expect(res.status, path).toBe(401);
        expect(res.body, path).toEqual(UNAUTHORIZED);
      }
    });

    it('answers 4001 with HTTP 415 for a body that is not application/json', async () => {
      const res = await http(t.url, 'POST', '/v1/auth/client-token', {
        rawBody: `apiKey=${m.api_key}&secretKey=${m.secret_key}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(415);
      expect(res.body).toEqual(UNAUTHORIZED);
    });
  });

  describe('the token', () => {
    it.each(['v2', 'v1'] as const)(
      'a %s token is a HS256 JWT with sub, iat, exp = iat + TTL, jti and the scheme',
      async (scheme) => {
        const before = Math.floor(Date.now() / 1000);
        const c1 = await MerchantClient.connect(t.url, m, scheme);
        const c2 = await MerchantClient.connect(t.url, m, scheme);
        const after = Math.ceil(Date.now() / 1000);
        const { header, payload } = decodeJwt(c1.token);
        expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
        expect(payload.sub).toBe(m.merchant_id);
        expect(payload.scheme).toBe(scheme);
        expect(typeof payload.jti).toBe('string');
        expect((payload.jti as string).length).toBeGreaterThanOrEqual(16);
        expect(Number.isInteger(payload.iat)).toBe(true);
        expect(payload.iat as number).toBeGreaterThanOrEqual(before);
        expect(payload.iat as number).toBeLessThanOrEqual(after);
        expect((payload.exp as number) - (payload.iat as number)).toBe(300);
        expect(decodeJwt(c2.token).payload.jti).not.toBe(payload.jti);
      },
    );

    it('contains no credential', async () => {
      const c = await MerchantClient.connect(t.url, m, 'v2');
      const text = JSON.stringify(decodeJwt(c.token));
      expect(text).not.toContain(m.api_key);
      expect(text).not.toContain(m.secret_key);
    });

    it('opens the session of its merchant on a merchant route, in its scheme', async () => {
      for (const scheme of ['v1', 'v2'] as const) {
        const c = await MerchantClient.connect(t.url, m, scheme);
        const res = await c.get(`/payout/v1/balance?wallet_id=${m.wallet_id}`);
        expect(res.status).toBe(200);
        expect(res.data).toMatchObject({ wallet_id: m.wallet_id, balance: '0.00' });
      }
    });

    it('a token whose claims were changed, or signed with another key, or alg none, is refused', async () => {
      const other = await createMerchant(t.url, 'Victim');
      const c = await MerchantClient.connect(t.url, m, 'v2');
      const { header, payload, signature } = decodeJwt(c.token);
      const forged = [
        // Claims pointing at another merchant, with the original signature.
        `${b64url(header)}.${b64url({ ...payload, sub: other.merchant_id })}.${signature}`,
        // Signed with a key the server does not have.
        (() => {
          const head = `${b64url(header)}.${b64url({ ...payload, sub: other.merchant_id })}`;
          return `${head}.${createHmac('sha256', 'guessed-key').update(head).digest('base64url')}`;
        })(),
        // Unsigned.
        `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...payload, sub: other.merchant_id })}.`,
        // Expired an hour ago, otherwise genuine-looking.
        `${b64url(header)}.${b64url({ ...payload, exp: Math.floor(Date.now() / 1000) - 3600 })}.${signature}`,
        'not-a-jwt',
        '',
      ];
      for (const token of forged) {
        const res = await balanceWith(token, other.wallet_id);
        expect(res.status, token).toBe(401);
        expect(res.body.resp_code, token).toBe(4001);
      }
      // Control: the genuine token works for its own wallet.
      expect((await balanceWith(c.token)).body.resp_code).toBe(2000);
    });
  });

  describe('failed-attempt throttle', () => {
    it('after 10 failures for one api key answers 4290 with HTTP 429, even to the right secret; others unaffected', async () => {
      const victim = await createMerchant(t.url, 'Guessed');
      for (let i = 0; i < 10; i++) {
        expectUnauthorized(await v2({ apiKey: victim.api_key, secretKey: `guess${i}`.padEnd(16, '0') }));
      }
      const locked = await v2(keysOf(victim));
      expect(locked.status).toBe(429);
      expect(locked.body).toEqual({ respCode: 4290, respMessage: expect.any(String) });
      expect((await v2(keysOf(m))).body.respCode).toBe(2000);
    });
  });
});
