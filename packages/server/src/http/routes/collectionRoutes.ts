import { CollectionCodes, isId } from '@payrail/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { RequestRejected } from '../../domain/RequestRejected.ts';
import type { CollectionService } from '../../services/CollectionService.ts';
import type { Session, TokenService } from '../../services/TokenService.ts';
import { sendEnvelope } from '../plugins/errorHandler.ts';
import { requireMerchant, resolveSession } from '../plugins/merchantAuth.ts';
import type { StatusRateLimit } from '../StatusRateLimit.ts';
import { bearerSecurity, collectionEnvelope, encryptedBody } from './merchantSchemas.ts';
import { decryptPayload } from './payoutRoutes.ts';

interface Deps {
  tokens: TokenService;
  collections: CollectionService;
  statusRateLimit: StatusRateLimit;
}

/**
 * POST /collection/v1/initiate, collection status (GET with a query, POST with an encrypted payload) and the QR
 * of the intent link (camelCase envelope).
 */
export function collectionRoutes(app: FastifyInstance, deps: Deps) {
  const config = { errorStyle: 'collection' as const };
  // Both forms of collection status are one endpoint: one limit, one counter.
  const statusLimit = deps.statusRateLimit.hook('collection-status');
  const statusResponses = {
    200: collectionEnvelope('2000; data = CollectionTransaction'),
    400: collectionEnvelope('4000 neither identifier, 4103 both, 4105 malformed txnId'),
    401: collectionEnvelope('4008'),
    403: collectionEnvelope('4107: another merchant’s transaction'),
    404: collectionEnvelope('4104: not found'),
    429: collectionEnvelope('4290: rate limit exceeded'),
  };

  app.post(
    '/collection/v1/initiate',
    {
      onRequest: requireMerchant(deps.tokens, CollectionCodes.unauthorized),
      config: { ...config, invalidBody: CollectionCodes.undecryptable },
      schema: {
        tags: ['collections'],
        summary: 'Create a UPI collection request (intent link, or collect request to payerVpa)',
        description:
          'Plaintext: `CollectionInitiateRequest`. Success `data`: `CollectionTransaction` (status INITIATED, with paymentUrl) plus `intentUrl`.',
        security: bearerSecurity,
        body: encryptedBody,
        response: {
          200: collectionEnvelope('2000; data = CollectionTransaction + intentUrl'),
          400: collectionEnvelope('4014 undecryptable, 4110 invalid amount, 4111 invalid field'),
          401: collectionEnvelope('4008: invalid or expired token'),
          409: collectionEnvelope('4112: duplicate senderId; data = the existing collection'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const plain = decryptPayload(request, CollectionCodes.undecryptable);
      const created = await deps.collections.initiate(session.merchant, session.scheme, plain);
      return sendEnvelope(request, reply, CollectionCodes.initiated, created);
    },
  );

  app.get(
    '/collection/v1/status',
    {
      // The seed's rules apply in order: the query is checked before the token (rule 6 comes last).
      onRequest: async (request: FastifyRequest) => {
        request.session = await resolveSession(deps.tokens, request);
      },
      preHandler: statusLimit,
      config,
      schema: {
        tags: ['collections'],
        summary: 'Status of a collection by txnId or senderId (exactly one)',
        security: bearerSecurity,
        querystring: { type: 'object', properties: { txnId: { type: 'string' }, senderId: { type: 'string' } } },
        response: statusResponses,
      },
    },
    async (request, reply) => {
      const { txnId, senderId } = request.query as { txnId?: string; senderId?: string };
      const data = await deps.collections.status(request.session?.merchant ?? null, { txnId, senderId });
      return sendEnvelope(request, reply, CollectionCodes.fetched, data);
    },
  );

  app.post(
    '/collection/v1/status',
    {
      // The token comes first on this form: without it the payload cannot be read (4008), then 4014.
      onRequest: requireMerchant(deps.tokens, CollectionCodes.unauthorized),
      preHandler: statusLimit,
      config: { ...config, invalidBody: CollectionCodes.undecryptable },
      schema: {
        tags: ['collections'],
        summary: 'Status of a collection, the identifier in an encrypted payload (txnId or senderId, exactly one)',
        description:
          'Plaintext: `CollectionStatusRequest`. The same rules, codes and rate limit as the GET form; 4014 when the payload does not decrypt.',
        security: bearerSecurity,
        body: encryptedBody,
        response: {
          ...statusResponses,
          400: collectionEnvelope('4014 undecryptable, 4000 neither identifier, 4103 both, 4105 malformed txnId'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const plain = decryptPayload(request, CollectionCodes.undecryptable);
      const data = await deps.collections.status(session.merchant, { txnId: plain.txnId, senderId: plain.senderId });
      return sendEnvelope(request, reply, CollectionCodes.fetched, data);
    },
  );

  app.get(
    '/collection/v1/qr',
    {
      onRequest: requireMerchant(deps.tokens, CollectionCodes.unauthorized),
      config,
      schema: {
        tags: ['collections'],
        summary: 'QR code of a collection’s UPI intent link (SVG by default, PNG with format=png)',
        security: bearerSecurity,
        querystring: {
          type: 'object',
          properties: { txnId: { type: 'string' }, format: { type: 'string', enum: ['svg', 'png'] } },
        },
        response: {
          200: { description: 'image/svg+xml or image/png', type: 'string' },
          400: collectionEnvelope('4105 malformed txnId'),
          401: collectionEnvelope('4008'),
          404: collectionEnvelope('4104: not found (or another merchant’s)'),
        },
      },
    },
    async (request, reply) => {
      const { txnId, format } = request.query as { txnId?: string; format?: 'svg' | 'png' };
      if (!isId('collection', txnId)) throw new RequestRejected(CollectionCodes.malformedTxnId);
      const url = await deps.collections.intentUrlOf((request.session as Session).merchant, txnId);
      if (!url) throw new RequestRejected(CollectionCodes.notFound);
      if (format === 'png') {
        return reply.type('image/png').send(await QRCode.toBuffer(url, { type: 'png', margin: 2, scale: 6 }));
      }
      return reply.type('image/svg+xml').send(await QRCode.toString(url, { type: 'svg', margin: 2 }));
    },
  );
}
