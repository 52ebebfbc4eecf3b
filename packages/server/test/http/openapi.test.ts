import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

describe('OpenAPI document and reference page', () => {
  let t: TestServer;
  let doc: OpenApiDoc;
  beforeAll(async () => {
    t = await startTestServer('pglite');
    doc = (await http(t.url, 'GET', '/openapi.json')).body as unknown as OpenApiDoc;
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every registered route', () => {
    const routes = t.server.app.routeTable.filter((r) => !r.hidden && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(20);
    const missing = routes.filter((r) => {
      const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}');
      return !doc.paths[path]?.[r.method.toLowerCase()];
    });
    expect(missing).toEqual([]);
  });

  it('names the decrypted plaintexts as component schemas', () => {
    for (const name of [
      'PayoutInitiateRequest',
      'PayoutTransaction',
      'Balance',
      'CollectionInitiateRequest',
      'CollectionTransaction',
      'TokenData',
      'WebhookEvent',
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    expect(doc.components.securitySchemes.bearerAuth).toBeDefined();
  });

  it('lists every response code of the payout initiation', () => {
    const responses = Object.keys(doc.paths['/payout/v1/initiate']?.post?.responses ?? {});
    expect(responses).toEqual(expect.arrayContaining(['200', '400', '401', '409', '422', '503']));
  });

  it('serves the interactive reference at /docs', async () => {
    const res = await fetch(`${t.url}/docs/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('swagger');
  });
});
