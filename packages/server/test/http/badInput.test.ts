import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  createMerchant,
  http,
  MerchantClient,
  type HttpResult,
  type TestMerchant,
} from '../support/merchantClient.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

/** The body limit of every route but bulk (SECURITY.md). */
const LIMIT = 64 * 1024;

/** Anything that looks like a stack trace, a source location or an internal error name. */
const LEAK =
  /\bat [^\n]*:\d+:\d+|\.ts:\d+|\.js:\d+|node_modules|\/work\/|TypeError|ReferenceError|SyntaxError|\bstack\b/i;

function expectClean(res: HttpResult, label: string) {
  expect(res.status, label).toBeLessThan(500);
  expect(JSON.stringify(res.body), label).not.toMatch(LEAK);
}

/** Sends exact bytes (fetch would re-encode a string as UTF-8). */
function sendBytes(url: string, method: string, path: string, bytes: Buffer, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers: { ...headers, 'content-length': bytes.length } });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

/** Sends `size` bytes as a chunked body (no Content-Length), so the limit must be enforced while streaming. */
function postChunked(url: string, path: string, size: number, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    req.write('{"name":"');
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return req.once('drain', pump);
      }
      req.end('"}');
    };
    pump();
  });
}

describe.each(ENGINES)('bad input on %s', (engine) => {
  let t: TestServer;
  let m: TestMerchant;
  let client: MerchantClient;
  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: '100000' } });
    m = await createMerchant(t.url);
    client = await MerchantClient.connect(t.url, m, 'v2');
  });
  afterAll(() => t.close());

  const adminHeaders = () => ({ authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' });

  describe('admin routes', () => {
    it('a body that is not JSON: 400 invalid_request', async () => {
      const res = await http(t.url, 'POST', '/admin/v1/merchants', {
        rawBody: '{"name": "x"',
        headers: adminHeaders(),
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
    });

    it('a body that is not application/json: 415 unsupported_media_type', async () => {
      const res = await http(t.url, 'POST', '/admin/v1/merchants', {
        rawBody: 'name=x',
        headers: { ...adminHeaders(), 'content-type': 'text/plain' },
      });
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ error: { code: 'unsupported_media_type', message: expect.any(String) } });
    });

    it('a body of exactly 64 KiB is read (and refused for its content), one byte more is 413', async () => {
      const exact = JSON.stringify({ name: 'x'.repeat(LIMIT - '{"name":""}'.length) });
      expect(Buffer.byteLength(exact)).toBe(LIMIT);
      const ok = await http(t.url, 'POST', '/admin/v1/merchants', { rawBody: exact, headers: adminHeaders() });
      expect(ok.status).toBe(400);
      expect(ok.body).toMatchObject({ error: { code: 'invalid_request' } });

      const over = JSON.stringify({ name: 'x'.repeat(LIMIT - '{"name":""}'.length + 1) });
      const res = await http(t.url, 'POST', '/admin/v1/merchants', { rawBody: over, headers: adminHeaders() });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ error: { code: 'body_too_large', message: expect.any(String) } });
    });

    it('a chunked body over 64 KiB without Content-Length: 413', async () => {
      const res = await postChunked(t.url, '/admin/v1/merchants', 2 * LIMIT, adminHeaders());
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toEqual({ error: { code: 'body_too_large', message: expect.any(String) } });
    });

    it('an unknown route: 404 in the error shape', async () => {
      const res = await admin(t.url, 'GET', '/admin/v1/nothing-here');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'route_not_found', message: expect.any(String) } });
    });
  });

  describe('token routes', () => {
    it.each(['/v1/auth/client-token', '/v1/auth/clients/token'])(
      '%s: a body over 64 KiB is 413 in the token envelope',
      async (path) => {
        const res = await http(t.url, 'POST', path, {
          rawBody: JSON.stringify({ apiKey: 'x'.repeat(LIMIT), secretKey: 'y' }),
          headers: { 'content-type': 'application/json', 'x-api-key': m.api_key },
        });
        expect(res.status).toBe(413);
        expect(res.body).toEqual({ respCode: 4000, respMessage: 'Request body exceeds 64 KiB' });
      },
    );

    it('a chunked body over 64 KiB: 413 in the token envelope', async () => {
      const res = await postChunked(t.url, '/v1/auth/client-token', 2 * LIMIT, {});
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toEqual({ respCode: 4000, respMessage: 'Request body exceeds 64 KiB' });
    });
  });

  describe('merchant routes', () => {
    it('a body over 64 KiB on payout initiation is 413 in the payout envelope', async () => {
      const res = await http(t.url, 'POST', '/payout/v1/initiate', {
        rawBody: JSON.stringify({ payload: 'A'.repeat(LIMIT) }),
        headers: { ...client.auth(), 'content-type': 'application/json' },
      });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ resp_code: 4000, resp_message: 'Request body exceeds 64 KiB' });
    });
  });

  describe('never a 500, never a stack trace', () => {
    const bodies: [string, string, 'form'?][] = [
      ['invalid JSON', '{"a":'],
      ['trailing garbage', '{"a":1} x'],
      ['empty body', ''],
      ['JSON null', 'null'],
      ['JSON number', '1e400'],
      ['JSON string', '"x"'],
      ['JSON array', '[1,2,3]'],
      ['deeply nested arrays', `${'['.repeat(5000)}${']'.repeat(5000)}`],
      ['deeply nested objects', `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`],
      ['prototype pollution', '{"__proto__":{"polluted":true},"name":"x","payload":"x"}'],
      ['constructor pollution', '{"constructor":{"prototype":{"polluted":true}},"name":"x"}'],
      ['NUL characters', '{"name":"a\\u0000b","payload":"\\u0000","apiKey":"\\u0000","secretKey":"\\u0000"}'],
      ['lone surrogate', '{"name":"\\ud800","payload":"\\udfff","amount":"\\ud800"}'],
      ['duplicate keys', '{"name":"a","name":"b","amount":"1","amount":"2"}'],
      ['huge numbers', '{"amount":1e308,"name":123456789012345678901234567890,"daily_limit":-1e308}'],
      ['wrong types everywhere', '{"name":{},"amount":[],"reference":{},"status":[],"payload":{},"apiKey":[]}'],
      ['form body', 'a=1&b=2', 'form'],
    ];

    const routes = (): [string, string, Record<string, string>][] => {
      const adminAuth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
      return [
        ['POST', '/admin/v1/merchants', adminAuth],
        ['PATCH', `/admin/v1/merchants/${m.merchant_id}`, adminAuth],
        ['POST', `/admin/v1/merchants/${m.merchant_id}/wallets`, adminAuth],
        ['POST', `/admin/v1/merchants/${m.merchant_id}/credentials/rotate`, adminAuth],
        ['POST', `/admin/v1/wallets/${m.wallet_id}/credits`, adminAuth],
        ['POST', '/v1/auth/client-token', {}],
        ['POST', '/v1/auth/clients/token', { 'x-api-key': m.api_key }],
        ['POST', '/payout/v1/initiate', client.auth()],
        ['POST', '/collection/v1/initiate', client.auth()],
      ];
    };

    it('for every malformed body on every route that takes one', async () => {
      for (const [method, path, headers] of routes()) {
        for (const [label, body, kind] of bodies) {
          const contentType = kind === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
          const res = await http(t.url, method, path, {
            rawBody: body,
            headers: { ...headers, 'content-type': contentType },
          });
          expectClean(res, `${method} ${path} ${label}`);
        }
      }
      // The prototype of plain objects was not polluted in this process either.
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('for a body that is not valid UTF-8', async () => {
      const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]);
      for (const [method, path, headers] of routes()) {
        const res = await sendBytes(t.url, method, path, bytes, { ...headers, 'content-type': 'application/json' });
        expect(res.status, path).toBeLessThan(500);
        expect(res.body, path).not.toMatch(LEAK);
      }
    });

    it('for odd paths, methods and headers', async () => {
      const adminAuth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
      const cases: [string, string, Record<string, string>?][] = [
        ['GET', '/%'],
        ['GET', '/admin/v1/merchants/%E0%A4%A'],
        ['GET', `/admin/v1/merchants/${'M'.repeat(5000)}`],
        ['DELETE', '/admin/v1/merchants'],
        ['PUT', '/v1/auth/client-token'],
        ['GET', '/v1/auth/client-token'],
        ['GET', '/payout/v1/status?transaction_id=%00', client.auth()],
        ['GET', '/payout/v1/balance?wallet_id[]=x&wallet_id=y', client.auth()],
        ['GET', '/payout/v1/balance', { authorization: `Bearer ${'x'.repeat(10_000)}` }],
        ['GET', '/payout/v1/balance', { authorization: 'Bearer a.b.c' }],
        ['GET', '/healthz?x=%zz'],
        ['GET', '/admin/v1/merchants/%00', adminAuth],
        ['GET', '/admin/v1/wallets/%00', adminAuth],
        ['POST', '/admin/v1/merchants/%00/wallets', adminAuth],
        ['POST', '/admin/v1/merchants/%00/credentials/rotate', adminAuth],
        ['GET', '/payout/v1/balance?wallet_id=%00', client.auth()],
        ['GET', '/payout/v1/status?sender_id=%00', client.auth()],
        ['GET', '/collection/v1/status?senderId=%00', client.auth()],
      ];
      for (const [method, path, headers] of cases) {
        const res = await http(t.url, method, path, { headers });
        expectClean(res, `${method} ${path}`);
        expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(200);
      }
    });

    it("a NUL character in a text field is the client's error (PostgreSQL cannot store it), not a 500", async () => {
      const nul = 'a\u0000b';
      const adminCases: [string, string, unknown][] = [
        ['POST', '/admin/v1/merchants', { name: nul }],
        ['PATCH', `/admin/v1/merchants/${m.merchant_id}`, { upi_payee_name: nul }],
        ['POST', `/admin/v1/wallets/${m.wallet_id}/credits`, { amount: '1.00', reference: nul }],
      ];
      for (const [method, path, body] of adminCases) {
        const res = await admin(t.url, method, path, body);
        expect(res.status, path).toBe(400);
        expect(res.body, path).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
      }
      const token = await http(t.url, 'POST', '/v1/auth/client-token', { body: { apiKey: nul, secretKey: nul } });
      expect(token.status).toBe(401);
      expect(token.body).toEqual({ respCode: 4001, respMessage: expect.any(String) });
      const wallet = await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}`);
      expect(wallet.body.balance).toBe('0.00');
    });

    it('the server is still healthy afterwards', async () => {
      expect((await http(t.url, 'GET', '/healthz')).body).toMatchObject({ status: 'ok' });
      expect((await admin(t.url, 'GET', '/admin/v1/ledger/verify')).body).toMatchObject({ ok: true });
    });
  });
});
