import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import {
  COLLECTION_STATUSES,
  CollectionCodes,
  SettlementCodes,
  Common,
  DELIVERY_STATES,
  EXCEPTION_KIND_NAMES,
  EXCEPTION_STATES,
  isOperatorCode,
  MERCHANT_ROUTE_CODES,
  OPERATOR_CODE_NAMES,
  OPERATOR_CODES,
  OPERATOR_ROLES,
  PAYOUT_STATUSES,
  PayoutCodes,
  RECON_RESULT_NAMES,
  TokenCodes,
  type CodeDef,
} from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationIdOf } from '../../src/http/plugins/openapi.ts';
import { http } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/** The parts of an answer's schema an operator error has: `{"error": {"code", "message"}}`. */
interface ErrorSchema {
  properties?: { error?: { properties?: { code?: { enum?: string[] } } } };
}

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
}

interface OpenApiDoc {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<
    string,
    Record<
      string,
      {
        operationId?: string;
        security?: Record<string, string[]>[];
        summary?: string;
        description?: string;
        responses?: Record<
          string,
          { description?: string; content?: Record<string, { schema?: ErrorSchema } | undefined> }
        >;
      }
    >
  >;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

describe('OpenAPI document and reference page', () => {
  let t: TestServer;
  let doc: OpenApiDoc;
  beforeAll(async () => {
    // With the routes registered only when configured: the PSP notifications and the upstream's webhook.
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
    doc = (await http(t.url, 'GET', '/openapi.json')).body as unknown as OpenApiDoc;
  });
  afterAll(() => t.close());

  it('names every operation once and says who may call it, for client generators (issue 32)', () => {
    const ids = new Map<string, string[]>();
    const noSecurity: string[] = [];
    const used = new Set<string>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations) as [string, Operation][]) {
        const where = `${method.toUpperCase()} ${path}`;
        ids.set(operation.operationId ?? '(none)', [...(ids.get(operation.operationId ?? '(none)') ?? []), where]);
        if (!Array.isArray(operation.security)) noSecurity.push(where);
        for (const requirement of operation.security ?? []) for (const name of Object.keys(requirement)) used.add(name);
      }
    }
    expect(ids.get('(none)') ?? []).toEqual([]);
    expect([...ids].filter(([, where]) => where.length > 1)).toEqual([]);
    expect(noSecurity).toEqual([]);
    // Derived from the method and the path: stable across releases, as generated clients name their methods so.
    expect(doc.paths['/payout/v1/initiate']?.post?.operationId).toBe('postPayoutV1Initiate');
    expect(doc.paths['/admin/v1/payouts/{transaction_id}/return']?.post?.operationId).toBe(
      'postAdminV1PayoutsByTransactionIdReturn',
    );
    // The public ones say so; the console's JSON API names its session cookie.
    for (const [method, path] of [
      ['get', '/healthz'],
      ['post', '/v1/auth/client-token'],
      ['get', '/pay/{token}'],
    ] as const) {
      expect(doc.paths[path]?.[method]?.security, `${method} ${path}`).toEqual([]);
    }
    expect(doc.paths['/console/api/merchant/payouts']?.get?.security).toEqual([{ merchantConsoleSession: [] }]);
    expect(doc.paths['/payout/v1/initiate']?.post?.security).toEqual([{ bearerAuth: [] }]);
    // A declared scheme is one some operation uses.
    expect(Object.keys(doc.components.securitySchemes).filter((name) => !used.has(name))).toEqual([]);
    expect(doc.servers?.length).toBe(1);
    expect(doc.servers?.[0]?.url).toMatch(/^(\/|https?:\/\/)/);
  });

  it('derives operationIds from the method and the path', () => {
    expect(operationIdOf('GET', '/console/assets/*')).toBe('getConsoleAssetsAny');
    expect(operationIdOf('get', '/')).toBe('getRoot');
    expect(operationIdOf('post', '/psp/v1/upstream/webhook')).toBe('postPspV1UpstreamWebhook');
    expect(operationIdOf('get', '/console/api/merchant/collections/{txnId}/qr')).toBe(
      'getConsoleApiMerchantCollectionsByTxnIdQr',
    );
  });

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
      [Common, TokenCodes, PayoutCodes, CollectionCodes, SettlementCodes].flatMap((group) => Object.values(group)),
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

  it("gives the operator routes' error body the codes of protocol's table, and names each with its status (issue 29)", () => {
    const merchantRoutes = new Set(
      Object.keys(MERCHANT_ROUTE_CODES).map((key) => {
        const [method, url] = key.split(' ') as [string, string];
        return `${method.toLowerCase()} ${url.replace(/:([A-Za-z_]+)/g, '{$1}')}`;
      }),
    );
    const wrong: string[] = [];
    let enums = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (merchantRoutes.has(`${method} ${path}`)) continue;
        const where = `${method.toUpperCase()} ${path}`;
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (!/^[45]/.test(status)) continue;
          const code = response.content?.['application/json']?.schema?.properties?.error?.properties?.code;
          if (code?.enum) {
            enums++;
            if (JSON.stringify(code.enum) !== JSON.stringify(OPERATOR_CODE_NAMES))
              wrong.push(`${where} ${status}: enum`);
          }
          // An error answer's description names codes of its own status ("invalid_request: not a notification").
          for (const [word] of (response.description ?? '').matchAll(/\b[a-z]+(?:_[a-z]+)+\b/g)) {
            if (!isOperatorCode(word)) wrong.push(`${where} ${status}: ${word} is not an operator code`);
            else if (String(OPERATOR_CODES[word].http) !== status) wrong.push(`${where} ${status}: ${word}`);
          }
        }
        // A summary or description that writes a status before a code ("403 lineage_conflict otherwise").
        for (const text of [operation.summary ?? '', operation.description ?? '']) {
          for (const [, status, word] of text.matchAll(/\b([45]\d\d) `?([a-z]+(?:_[a-z]+)+)\b/g)) {
            if (!isOperatorCode(word)) wrong.push(`${where}: ${word} is not an operator code`);
            else if (String(OPERATOR_CODES[word].http) !== status) wrong.push(`${where}: ${status} ${word}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(enums).toBeGreaterThan(50);
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
