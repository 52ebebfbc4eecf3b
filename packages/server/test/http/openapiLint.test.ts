import { randomBytes } from 'node:crypto';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * The problems of the recommended rules the document keeps on purpose, each at one exact place, with the reason.
 * Anything else, and any of these that no longer occurs, fails the test: the list never hides a new problem.
 */
const KEPT: { rule: string; pointer: string; why: string }[] = [
  {
    rule: 'info-license',
    pointer: '#/info',
    why: 'the project states no licence (no LICENSE file, no license field in package.json); naming one is the owners’ decision, not the document’s',
  },
  // The probes take no input and no credentials and are not rate limited: they answer 200 (or 503), never a 4xx.
  // Documenting a 4xx they cannot give would mislead a client generator.
  ...['/healthz', '/readyz', '/metrics'].map((path) => ({
    rule: 'operation-4xx-response',
    pointer: `#/paths/${path.replaceAll('/', '~1')}/get/responses`,
    why: 'an operational probe has no 4xx answer',
  })),
];

/**
 * The served OpenAPI document through Redocly's linter with its `recommended` rules, as a merchant's client
 * generator or an API catalogue would check it (issue 32): any error or warning fails, but those of KEPT. The
 * server runs with every optional route registered (PSP notifications, the upstream's webhook), so that all
 * operations are linted.
 */
describe('OpenAPI document under Redocly recommended', () => {
  let t: TestServer;
  let source: string;
  beforeAll(async () => {
    t = await startTestServer('pglite', {
      env: {
        PAYRAIL_PSP_NOTIFY_SECRET: `psp_${randomBytes(24).toString('hex')}`,
        PAYRAIL_CONNECTOR_ROUTES: 'RTGS=upstream',
        PAYRAIL_UPSTREAM_URL: 'http://127.0.0.1:9',
        PAYRAIL_UPSTREAM_API_KEY: 'U'.repeat(32),
        PAYRAIL_UPSTREAM_SECRET_KEY: 'S'.repeat(16),
        PAYRAIL_UPSTREAM_WALLET_ID: 'WL00000000000000000000000000',
        PAYRAIL_UPSTREAM_WEBHOOK_SECRET: `whsec_${randomBytes(12).toString('hex')}`,
      },
    });
    source = JSON.stringify((await http(t.url, 'GET', '/openapi.json')).body);
  });
  afterAll(() => t.close());

  it('has no error or warning but the ones kept on purpose', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const found = problems
      .filter((p) => p.severity === 'error' || p.severity === 'warn')
      .map((p) => ({ rule: p.ruleId, pointer: p.location[0]?.pointer ?? '?', message: p.message }));
    const kept = (p: { rule: string; pointer: string }) =>
      KEPT.some((k) => k.rule === p.rule && k.pointer === p.pointer);
    expect(found.filter((p) => !kept(p))).toEqual([]);
    expect(KEPT.filter((k) => !found.some((p) => p.rule === k.rule && p.pointer === k.pointer))).toEqual([]);
  }, 60_000);

  it('links each encrypted string to the schema of its plaintext, and describes the webhook', () => {
    const doc = JSON.parse(source) as {
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
      webhooks?: Record<string, unknown>;
    };
    const schemaOf = (node: unknown) =>
      (node as { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } }).content[
        'application/json'
      ].schema;
    const initiate = doc.paths['/payout/v1/initiate']?.post;
    expect(schemaOf(initiate?.requestBody).properties.payload).toMatchObject({
      type: 'string',
      contentMediaType: 'application/json',
      contentSchema: { $ref: '#/components/schemas/PayoutInitiateRequest' },
    });
    expect(schemaOf(initiate?.responses['200']).properties.data).toMatchObject({
      contentSchema: { $ref: '#/components/schemas/PayoutTransaction' },
    });
    expect(doc.webhooks?.transactionEvent).toMatchObject({
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } } },
      },
    });
  });
});
