import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { WIRE_SCHEMAS } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { DOCS_CSP } from './securityHeaders.ts';

/**
 * The OpenAPI 3.1 document is generated from the same route schemas that validate requests; the decrypted
 * plaintexts are added as named component schemas. Served at /openapi.json, rendered at /docs.
 */
export async function registerOpenApi(app: FastifyInstance) {
  for (const schema of Object.values(WIRE_SCHEMAS)) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Payrail API',
        version: '1.0.0',
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
          pspSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'Payrail-Signature',
            description: 't=<unix seconds>,v1=<hex HMAC-SHA256(PAYRAIL_PSP_NOTIFY_SECRET, "<t>.<raw body>")>',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string) || `def-${i}` },
  });
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
