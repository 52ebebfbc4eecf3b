import { createHmac, createSign, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * The JWT attack suite of issue 10 (SECURITY.md): every forged or unacceptable token is 4001 on payout routes
 * and 4008 on collection routes. Tokens are built by hand with node:crypto; the server's signing secret is known
 * (PAYRAIL_JWT_SECRET), so a case is refused for what it is, not for a wrong key.
 */
const SECRET = randomBytes(32).toString('base64');
const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const hmac = (hash: string, key: string | Buffer, data: string) =>
  createHmac(hash, key).update(data).digest('base64url');

function jwt(header: Record<string, unknown>, claims: Record<string, unknown>, sign: (input: string) => string) {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${sign(input)}`;
}
const hs256 = (input: string) => hmac('sha256', SECRET, input);
const HEADER = { alg: 'HS256', typ: 'JWT' };

describe('JWT attack suite', () => {
  let t: TestServer;
  let m: TestMerchant;
  let other: TestMerchant;
  const now = () => Math.floor(Date.now() / 1000);
  const claims = (extra: Record<string, unknown> = {}) => ({
    sub: m.merchant_id,
    iss: 'payrail',
    iat: now(),
    exp: now() + 300,
    jti: randomUUID(),
    scheme: 'v2',
    cv: 1,
    ...extra,
  });

  beforeAll(async () => {
    t = await startTestServer('pglite', { env: { PAYRAIL_JWT_SECRET: SECRET } });
    [m, other] = await Promise.all([createMerchant(t.url), createMerchant(t.url, 'Other')]);
  }, 180_000);
  afterAll(() => t?.close());

  const payout = (token: string) =>
    http(t.url, 'GET', `/payout/v1/balance?wallet_id=${m.wallet_id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
  const collection = (token: string) =>
    http(t.url, 'POST', '/collection/v1/initiate', { body: {}, headers: { authorization: `Bearer ${token}` } });

  async function expectRefused(token: string) {
    const p = await payout(token);
    expect(p.status, token).toBe(401);
    expect(p.body.resp_code, token).toBe(4001);
    const c = await collection(token);
    expect(c.status, token).toBe(401);
    expect(c.body.respCode, token).toBe(4008);
  }

  it('control: a token built by hand the way the server builds them is accepted (within 30 s of skew too)', async () => {
    expect((await payout(jwt(HEADER, claims(), hs256))).body.resp_code).toBe(2000);
    expect((await payout(jwt(HEADER, claims({ iat: now() + 10, nbf: now() + 10 }), hs256))).body.resp_code).toBe(2000);
    expect((await collection(jwt(HEADER, claims(), hs256))).body.respCode).not.toBe(4008);
  });

  it.each(['none', 'None', 'NONE', 'nOnE'])('alg %s (unsigned, and with a signature) is refused', async (alg) => {
    await expectRefused(jwt({ alg, typ: 'JWT' }, claims(), () => ''));
    await expectRefused(jwt({ alg, typ: 'JWT' }, claims(), hs256));
  });

  it.each([
    ['HS384', 'sha384'],
    ['HS512', 'sha512'],
  ])('%s, correctly signed with the secret, is refused (HS256 only, pinned)', async (alg, hash) => {
    await expectRefused(jwt({ alg, typ: 'JWT' }, claims(), (input) => hmac(hash, SECRET, input)));
  });

  it('RS256 headers are refused: HMAC-signed, RSA-signed with an embedded jwk, and key confusion', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    // The HMAC secret where an RSA public key would go.
    await expectRefused(jwt({ alg: 'RS256', typ: 'JWT' }, claims(), hs256));
    const rsa = (input: string) => createSign('RSA-SHA256').update(input).sign(privateKey).toString('base64url');
    await expectRefused(jwt({ alg: 'RS256', typ: 'JWT' }, claims(), rsa));
    await expectRefused(jwt({ alg: 'RS256', typ: 'JWT', jwk: publicKey.export({ format: 'jwk' }) }, claims(), rsa));
    // An RSA public key used as the HMAC secret (the classic confusion).
    const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    await expectRefused(jwt(HEADER, claims(), (input) => hmac('sha256', pem, input)));
  });

  it.each([
    ['kid', 'payrail-1'],
    ['jku', 'https://attacker.example/jwks.json'],
    ['x5u', 'https://attacker.example/cert.pem'],
    ['jwk', { kty: 'oct', k: b64(SECRET) }],
    ['crit', ['exp']],
  ])('a %s header is refused even with a good signature', async (name, value) => {
    await expectRefused(jwt({ ...HEADER, [name]: value }, claims(), hs256));
  });

  it('empty, truncated and foreign signatures are refused', async () => {
    const good = jwt(HEADER, claims(), hs256);
    await expectRefused(good.slice(0, good.lastIndexOf('.') + 1));
    await expectRefused(good.slice(0, -3));
    await expectRefused(jwt(HEADER, claims(), (input) => hmac('sha256', 'another-secret', input)));
  });

  it('another spelling of a good signature is refused: unused trailing bits, padding, a fourth segment', async () => {
    const good = jwt(HEADER, claims(), hs256);
    const signature = good.slice(good.lastIndexOf('.') + 1);
    const input = good.slice(0, good.lastIndexOf('.') + 1);
    // 32 bytes are 43 characters whose last one carries 2 unused bits: flipping them decodes to the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature.at(-1) as string);
    const sameBytes = `${signature.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(sameBytes, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    await expectRefused(`${input}${sameBytes}`);
    await expectRefused(`${input}${signature}=`);
    await expectRefused(`${good}.`);
  });

  it('a changed claim is refused', async () => {
    const good = jwt(HEADER, claims(), hs256);
    const [h, , s] = good.split('.');
    await expectRefused(`${h}.${b64(claims({ sub: other.merchant_id }))}.${s}`);
    await expectRefused(`${h}.${b64(claims({ exp: now() + 86_400 }))}.${s}`);
  });

  it('no exp, an expired exp, and iat or nbf more than 30 s ahead are refused', async () => {
    const { exp: _exp, ...noExp } = claims();
    await expectRefused(jwt(HEADER, noExp, hs256));
    await expectRefused(jwt(HEADER, claims({ exp: now() - 1 }), hs256));
    await expectRefused(jwt(HEADER, claims({ iat: now() + 60 }), hs256));
    await expectRefused(jwt(HEADER, claims({ nbf: now() + 60 }), hs256));
    const { iat: _iat, ...noIat } = claims();
    await expectRefused(jwt(HEADER, noIat, hs256));
  });

  it('a token of a rotated or a suspended merchant is refused', async () => {
    const [rotated, suspended] = await Promise.all([createMerchant(t.url, 'Rotated'), createMerchant(t.url, 'Paused')]);
    const [a, b] = await Promise.all([
      MerchantClient.connect(t.url, rotated, 'v2'),
      MerchantClient.connect(t.url, suspended, 'v1'),
    ]);
    await admin(t.url, 'POST', `/admin/v1/merchants/${rotated.merchant_id}/credentials/rotate`);
    await admin(t.url, 'PATCH', `/admin/v1/merchants/${suspended.merchant_id}`, { status: 'suspended' });
    await expectRefused(a.token);
    await expectRefused(b.token);
  });
});
