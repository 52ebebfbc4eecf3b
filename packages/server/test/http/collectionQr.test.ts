import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

describe('collection QR code and status edge cases', () => {
  let t: TestServer;
  let m: TestMerchant;
  let c: MerchantClient;
  let txnId: string;
  beforeAll(async () => {
    t = await startTestServer('pglite');
    m = await createMerchant(t.url, 'QR Shop');
    c = await MerchantClient.connect(t.url, m, 'v2');
    const res = await c.post('/collection/v1/initiate', { senderId: 'qr-1', amount: '99.00', remarks: 'Tea' });
    txnId = res.data?.txnId as string;
  });
  afterAll(() => t.close());

  it('renders the intent link as SVG by default and PNG on request', async () => {
    const svg = await fetch(`${t.url}/collection/v1/qr?txnId=${txnId}`, { headers: c.auth() });
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toContain('image/svg+xml');
    expect(await svg.text()).toMatch(/^<svg /);
    const png = await fetch(`${t.url}/collection/v1/qr?txnId=${txnId}&format=png`, { headers: c.auth() });
    expect(png.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await png.arrayBuffer());
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('refuses another merchant, a malformed id and a missing token', async () => {
    const other = await MerchantClient.connect(t.url, await createMerchant(t.url, 'Other'), 'v2');
    expect(
      (await http(t.url, 'GET', `/collection/v1/qr?txnId=${txnId}`, { headers: other.auth() })).body,
    ).toMatchObject({
      respCode: 4104,
    });
    expect((await http(t.url, 'GET', '/collection/v1/qr?txnId=nope', { headers: c.auth() })).body).toMatchObject({
      respCode: 4105,
    });
    expect((await http(t.url, 'GET', `/collection/v1/qr?txnId=${txnId}`)).status).toBe(401);
  });

  it('answers status for an impossible senderId with 4104, even with characters the database cannot store', async () => {
    for (const senderId of ['a\u0000b', 'x'.repeat(51), 'bad id']) {
      const res = await http(t.url, 'GET', `/collection/v1/status?senderId=${encodeURIComponent(senderId)}`, {
        headers: c.auth(),
      });
      expect([res.status, res.body.respCode], senderId).toEqual([404, 4104]);
    }
  });
});
