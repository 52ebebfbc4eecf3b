import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import {
  COLLECTION_STATUSES,
  CollectionCodes,
  Common,
  DELIVERY_STATES,
  EXCEPTION_KIND_NAMES,
  EXCEPTION_STATES,
  MERCHANT_ROUTE_CODES,
  OPERATOR_ROLES,
  PAYOUT_STATUSES,
  PayoutCodes,
  RECON_RESULT_NAMES,
  TokenCodes,
  type CodeDef,
} from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { responses?: Record<string, { description?: string }> }>>;
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

  it("names in each merchant route the codes of protocol's table it answers, and no other (issue 17)", () => {
    const table = new Set<CodeDef>(
      [Common, TokenCodes, PayoutCodes, CollectionCodes].flatMap((group) => Object.values(group)),
    );
    const wrong: string[] = [];
    for (const [key, defs] of Object.entries(MERCHANT_ROUTE_CODES)) {
      const [method, url] = key.split(' ') as [string, string];
      const responses = doc.paths[url.replace(/:([A-Za-z_]+)/g, '{$1}')]?.[method.toLowerCase()]?.responses ?? {};
      const expected = new Map<string, Set<number>>();
      for (const def of defs as readonly CodeDef[]) {
        // The bulk route's 413 names its own limit (withMessage): the same code and status as the table's.
        if (!table.has(def) && !(def.code === Common.bodyTooLarge.code && def.http === 413)) {
          wrong.push(`${key}: ${def.code} is not one of protocol's code definitions`);
        }
        expected.set(String(def.http), (expected.get(String(def.http)) ?? new Set()).add(def.code));
      }
      for (const [status, response] of Object.entries(responses)) {
        if (status.startsWith('2')) continue;
        const named = new Set([...(response.description ?? '').matchAll(/\b([45]\d{3})\b/g)].map((m) => Number(m[1])));
        expect([key, status, [...named].sort()]).toEqual([key, status, [...(expected.get(status) ?? [])].sort()]);
        expected.delete(status);
      }
      for (const status of expected.keys()) wrong.push(`${key}: no ${status} answer documented`);
    }
    expect(wrong).toEqual([]);
  });

  it('has no code number written by hand in a route file (they come from protocol)', () => {
    const dir = join(import.meta.dirname, '../../src/http/routes');
    const handWritten = readdirSync(dir).flatMap((file) =>
      readFileSync(join(dir, file), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
        .filter((line) => /(['"`])[^'"`]*\b(4\d{3}|5000)\b[^'"`]*\1/.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(handWritten).toEqual([]);
  });

  it("serves the console protocol's lists and the console keeps no copy of them (issue 17)", async () => {
    const res = await fetch(`${t.url}/console/assets/vocabulary.js`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const list = (name: string) =>
      JSON.parse(new RegExp(`export const ${name} = (\\[.*\\]);`).exec(text)?.[1] ?? 'null');
    expect(list('PAYOUT_STATUSES')).toEqual(PAYOUT_STATUSES);
    expect(list('COLLECTION_STATUSES')).toEqual(COLLECTION_STATUSES);
    expect(list('DELIVERY_STATES')).toEqual(DELIVERY_STATES);
    expect(list('OPERATOR_ROLES')).toEqual(OPERATOR_ROLES);
    expect(list('EXCEPTION_KINDS')).toEqual(EXCEPTION_KIND_NAMES);
    expect(list('EXCEPTION_STATES')).toEqual(EXCEPTION_STATES);
    expect(list('RECONCILIATION_RESULTS')).toEqual(RECON_RESULT_NAMES);
    const dir = join(import.meta.dirname, '../../console');
    const sources = readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => [f, readFileSync(join(dir, f), 'utf8')] as const);
    // A literal list of two or more statuses, or of the operator roles, is a second copy.
    const copies = sources.filter(([, src]) =>
      /\[\s*'(INITIATED|PROCESSING|PENDING|SUCCESS|FAILED|REFUNDED)'\s*,\s*'[A-Z]+'|<option>viewer<\/option>/.test(src),
    );
    expect(copies.map(([f]) => f)).toEqual([]);
    // The chart's colours: one per payout status, in protocol's order.
    const lib = sources.find(([f]) => f === 'lib.js')?.[1] ?? '';
    const colours = /const STATUS_COLORS = \{([^}]*)\}/.exec(lib)?.[1] ?? '';
    expect([...colours.matchAll(/([A-Z]+):/g)].map((m) => m[1])).toEqual(PAYOUT_STATUSES);
  });

  it('serves the interactive reference at /docs', async () => {
    const res = await fetch(`${t.url}/docs/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('swagger');
  });
});
