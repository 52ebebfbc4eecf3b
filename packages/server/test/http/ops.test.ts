import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { admin, createMerchant, http } from '../support/merchantClient.ts';
import { testDatabases, type TestDatabases } from '../support/testDatabase.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

describe.each(ENGINES)('operational endpoints on %s', (engine) => {
  let t: TestServer;
  let dbs: TestDatabases;
  let db: Database;
  beforeAll(async () => {
    // The test owns the database, so that it can take it away from the running server at the end.
    dbs = testDatabases(engine);
    db = (await dbs.fresh()).db;
    await migrate(db);
    t = await startTestServer(engine, { db });
  });
  afterAll(async () => {
    await t.close();
    await dbs.closeAll();
  });

  it('GET /healthz: 200 {"status":"ok"} without auth, with the build (buildVersion.test.ts checks its values)', async () => {
    const res = await http(t.url, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      version: expect.any(String),
      commit: expect.any(String),
      schema: { build: expect.any(Number), database: expect.any(Number) },
      worker: 'on',
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('GET /readyz: 200 while the database answers', async () => {
    const res = await http(t.url, 'GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok' });
  });

  it('GET /metrics: Prometheus text with payrail_ metrics and route templates as labels', async () => {
    const m = await createMerchant(t.url, 'Metered');
    await admin(t.url, 'GET', `/admin/v1/merchants/${m.merchant_id}`);
    await http(t.url, 'GET', '/healthz');
    const res = await fetch(`${t.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('# TYPE payrail_http_request_duration_seconds histogram');
    expect(text).toMatch(/payrail_http_request_duration_seconds_count\{[^}]*route="\/healthz"[^}]*\} \d+/);
    expect(text).toMatch(
      /payrail_http_request_duration_seconds_count\{[^}]*route="\/admin\/v1\/merchants\/:merchant_id"/,
    );
    expect(text).toMatch(/^payrail_process_cpu_user_seconds_total \d/m);
    expect(text).toContain('payrail_nodejs_heap_size_used_bytes');
    // Label values are route templates, never raw identifiers (unbounded cardinality, and they are not metrics).
    expect(text).not.toContain(m.merchant_id);
    // Every sample line is `name{labels} value` or `name value`.
    for (const line of text.split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      expect(line).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/);
    }
  });

  it('counts unknown routes under one label', async () => {
    await http(t.url, 'GET', '/no/such/route/ABC123');
    const text = await (await fetch(`${t.url}/metrics`)).text();
    expect(text).not.toContain('ABC123');
  });

  it('GET /readyz: 503 once the database is gone, while /healthz stays 200', async () => {
    await db.close();
    const res = await http(t.url, 'GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'unavailable' });
    expect(JSON.stringify(res.body)).not.toMatch(/Error|at .*:\d+/);
    expect((await http(t.url, 'GET', '/healthz')).status).toBe(200);
  });
});
