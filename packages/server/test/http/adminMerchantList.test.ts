import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createMerchant, http } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const ids = (body: Record<string, unknown>) => (body.data as { merchant_id: string }[]).map((m) => m.merchant_id);

describe.each(ENGINES)('GET /admin/v1/merchants on %s', (engine) => {
  let t: TestServer;
  // Created one after the other, so the list (newest first) shows them in reverse.
  const made: string[] = [];
  beforeAll(async () => {
    t = await startTestServer(engine);
    for (const name of ['Acme Traders', 'Beta Stores', 'ACME Wholesale', '100%_Pure Foods'])
      made.push((await createMerchant(t.url, name)).merchant_id);
    const wallet = await admin(t.url, 'POST', `/admin/v1/merchants/${made[0]}/wallets`);
    expect(wallet.status).toBe(201);
    expect((await admin(t.url, 'PATCH', `/admin/v1/merchants/${made[1]}`, { status: 'suspended' })).status).toBe(200);
  });
  afterAll(() => t.close());

  it('pages every merchant newest first, each exactly as GET /admin/v1/merchants/{id} shows it', async () => {
    const first = await admin(t.url, 'GET', '/admin/v1/merchants?limit=3');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(ids(first.body)).toEqual([...made].reverse().slice(0, 3));
    expect(first.body.has_more).toBe(true);
    const second = await admin(t.url, 'GET', `/admin/v1/merchants?limit=3&cursor=${first.body.next_cursor}`);
    expect(ids(second.body)).toEqual([made[0]]);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });

    const acme = (second.body.data as Record<string, unknown>[])[0] as Record<string, unknown>;
    const one = await admin(t.url, 'GET', `/admin/v1/merchants/${made[0]}`);
    expect(acme).toEqual(one.body);
    expect(acme.wallets).toHaveLength(2);
    for (const secret of ['api_key', 'secret_key', 'webhook_secret']) expect(acme).not.toHaveProperty(secret);
  });

  it('q matches the exact merchant id or part of the name in any case; status filters', async () => {
    const [byName, byId, partOfId, literal, suspended, active, none] = await Promise.all([
      admin(t.url, 'GET', '/admin/v1/merchants?q=acme'),
      admin(t.url, 'GET', `/admin/v1/merchants?q=${made[1]}`),
      admin(t.url, 'GET', `/admin/v1/merchants?q=${(made[1] as string).slice(0, 10)}`),
      // % and _ are characters to find, not wildcards.
      admin(t.url, 'GET', `/admin/v1/merchants?q=${encodeURIComponent('0%_p')}`),
      admin(t.url, 'GET', '/admin/v1/merchants?status=suspended'),
      admin(t.url, 'GET', '/admin/v1/merchants?status=active&q=ACME'),
      admin(t.url, 'GET', `/admin/v1/merchants?q=${encodeURIComponent('%')}x`),
    ]);
    expect(ids(byName.body)).toEqual([made[2], made[0]]);
    expect(ids(byId.body)).toEqual([made[1]]);
    expect(ids(partOfId.body)).toEqual([]);
    expect(ids(literal.body)).toEqual([made[3]]);
    expect(ids(suspended.body)).toEqual([made[1]]);
    expect(ids(active.body)).toEqual([made[2], made[0]]);
    expect(ids(none.body)).toEqual([]);
  });

  it('refuses a bad status, cursor or limit with 400 and a missing token with 401', async () => {
    const [status, cursor, limit, anonymous] = await Promise.all([
      admin(t.url, 'GET', '/admin/v1/merchants?status=gone'),
      admin(t.url, 'GET', '/admin/v1/merchants?cursor=bm90LWFuLWlk'),
      admin(t.url, 'GET', '/admin/v1/merchants?limit=-1'),
      http(t.url, 'GET', '/admin/v1/merchants'),
    ]);
    expect([status.status, cursor.status, limit.status, anonymous.status]).toEqual([400, 400, 400, 401]);
    expect(cursor.body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
  });

  it('is in the OpenAPI document', async () => {
    const doc = await http(t.url, 'GET', '/openapi.json');
    const paths = doc.body.paths as Record<string, Record<string, unknown>>;
    expect(paths['/admin/v1/merchants']).toHaveProperty('get');
  });
});
