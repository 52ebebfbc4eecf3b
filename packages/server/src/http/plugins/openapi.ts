import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { WIRE_SCHEMAS } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { linkPlaintexts } from './openapiPlaintexts.ts';
import { DOCS_CSP } from './securityHeaders.ts';
import { SERVER_VERSION } from '../../serverVersion.ts';

/**
 * The OpenAPI 3.1 document is generated from the same route schemas that validate requests; the decrypted
 * plaintexts are added as named component schemas. Served at /openapi.json, rendered at /docs.
 */
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

/**
 * A route's operationId, from its method and path, so that a client generator names its methods once and for good:
 * `POST /payout/v1/initiate` is `postPayoutV1Initiate`, `GET /admin/v1/payouts/{transaction_id}` is
 * `getAdminV1PayoutsByTransactionId`, `/console/assets/*` ends in `Any`. Unique as long as no two paths differ only
 * in their punctuation (openapi.test.ts checks it).
 */
export function operationIdOf(method: string, path: string): string {
  const pascal = (text: string) =>
    text
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((word) => word[0]!.toUpperCase() + word.slice(1))
      .join('');
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      if (segment === '*') return 'Any';
      const param = /^\{(.+)\}$/.exec(segment) ?? /^:(.+)$/.exec(segment);
      return param ? `By${pascal(param[1] as string)}` : pascal(segment);
    });
  return method.toLowerCase() + (words.join('') || 'Root');
}

/** Routes anyone may call: no credentials (sign-ins, tokens, health, the payment page; PSP routes sign bodies). */
const PUBLIC_OPERATIONS = new Set([
  'get /healthz',
  'get /readyz',
  'get /metrics',
  'post /v1/auth/client-token',
  'post /v1/auth/clients/token',
  'get /pay/{token}',
  'get /pay/{token}/status',
  'post /pay/{token}/simulate',
  'post /console/api/session',
  'get /console/api/whoami',
  'post /console/api/merchant/session',
]);

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
}
interface Document {
  servers?: { url: string; description?: string }[];
  paths?: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components?: { securitySchemes?: Record<string, unknown> };
  [key: string]: unknown;
}

/**
 * What client generators and linters ask of the document, set once here rather than on each route: every operation
 * has an operationId and says its security (`[]` for the public ones, the console's cookie for the console's JSON
 * API), the document names its server, and declares no security scheme that no operation uses; each encrypted
 * string names the component schema of its plaintext, and the webhook merchants receive is described.
 */
export function finishDocument(doc: Document, publicUrl: string | undefined): Document {
  doc.servers = [{ url: (publicUrl ?? '/').replace(/(.)\/+$/, '$1'), description: 'This Payrail server' }];
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = operations[method];
      if (!operation) continue;
      operation.operationId ??= operationIdOf(method, path);
      if (operation.security) continue;
      if (PUBLIC_OPERATIONS.has(`${method} ${path}`)) operation.security = [];
      else if (path === '/psp/v1/upstream/webhook') operation.security = [{ upstreamSignature: [] }];
      else if (path.startsWith('/console/api/merchant/')) operation.security = [{ merchantConsoleSession: [] }];
      else if (path.startsWith('/console/api/')) operation.security = [{ operatorConsoleSession: [] }];
    }
  }
  const used = new Set(
    Object.values(doc.paths ?? {}).flatMap((operations) =>
      METHODS.flatMap((m) => (operations[m]?.security ?? []).flatMap((s) => Object.keys(s))),
    ),
  );
  const schemes = doc.components?.securitySchemes ?? {};
  for (const name of Object.keys(schemes)) if (!used.has(name)) delete schemes[name];
  linkPlaintexts(doc);
  return doc;
}

export async function registerOpenApi(app: FastifyInstance, options: { publicUrl?: string; serve?: boolean } = {}) {
  for (const schema of Object.values(WIRE_SCHEMAS)) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Payrail API',
        // The server's own version: a client generated from this document says which release it was made from.
        version: SERVER_VERSION,
        description:
          'Merchant payouts (IMPS, NEFT, RTGS) and UPI collections. Request `payload` and response `data` are encrypted with the session scheme (V1 AES-256-CBC or V2 AES-256-GCM) fixed by the token endpoint; the plaintexts are the named schemas under components. Every merchant route (tokens, payouts, collections, sandbox) is also served under `/api` with the same behaviour (`/api/v1/auth/client-token`, `/api/payout/v1/initiate`, …), since the provider documents its base URL as ending in `/api/`; admin, console, PSP and operational routes are served at the root only. Webhooks carry `X-Signature` and, with the same value, `X-Paywize-Signature`.',
      },
      tags: [
        { name: 'tokens', description: 'Exchange credentials for a bearer token' },
        { name: 'payouts', description: 'Send money from a wallet to a bank account' },
        { name: 'collections', description: 'Receive UPI payments' },
        { name: 'sandbox', description: 'Sandbox-only simulation' },
        { name: 'admin', description: 'Operator API (bearer PAYRAIL_ADMIN_TOKEN)' },
        { name: 'operations', description: 'Health, readiness and metrics' },
        { name: 'psp', description: 'Signed outcome notifications from a PSP or bank (PAYRAIL_PSP_NOTIFY_SECRET)' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Merchant token' },
          adminAuth: { type: 'http', scheme: 'bearer', description: 'PAYRAIL_ADMIN_TOKEN' },
          operatorConsoleSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'payrail_op',
            description:
              "An operator's console session (`__Host-payrail_op` behind https), from POST /console/api/session; changes also send `X-CSRF-Token`",
          },
          merchantConsoleSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'payrail_mc',
            description:
              "A merchant's console session (`__Host-payrail_mc` behind https), from POST /console/api/merchant/session; changes also send `X-CSRF-Token`",
          },
          upstreamSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Signature',
            description:
              'sha256=<hex HMAC-SHA256(PAYRAIL_UPSTREAM_WEBHOOK_SECRET, raw body)>; X-Paywize-Signature is accepted too',
          },
          pspSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'Payrail-Signature',
            description: 't=<unix seconds>,v1=<hex HMAC-SHA256(PAYRAIL_PSP_NOTIFY_SECRET, "<t>.<raw body>")>',
          },
        },
      },
    },
    // The document object is { openapiObject } for OpenAPI (this one) and { swaggerObject } for Swagger 2.
    transformObject: (document) =>
      finishDocument((document as unknown as { openapiObject: Document }).openapiObject, options.publicUrl) as never,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string) || `def-${i}` },
  });
  // PAYRAIL_OPENAPI=off: the schemas above still check and shape every route; only the published document and its
  // UI are not served (a deployment that does not want its admin routes listed to whoever asks).
  if (options.serve === false) return;
  // The UI's own policy on every answer under /docs (its page, bundle and the document it loads): never framed.
  // BaseLayout: the documentation without the standalone top bar, whose logo is an inline style sheet (which the
  // policy refuses) and whose "explore" box would load any other document into this page.
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, layout: 'BaseLayout' },
    staticCSP: DOCS_CSP,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
