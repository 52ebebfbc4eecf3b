import {
  CollectionCodes,
  isId,
  merchantErrorResponses,
  ROUTE_SCHEMAS as R,
  type RouteRequest,
} from '@payrail/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { RequestRejected } from '../../domain/RequestRejected.ts';
import type { MerchantCollectionService } from '../../services/MerchantCollectionService.ts';
import type { Session, TokenService } from '../../services/TokenService.ts';
import { sendEnvelope } from '../sendEnvelope.ts';
import { requireMerchant, resolveSession } from '../plugins/merchantAuth.ts';
import type { StatusRateLimit } from '../StatusRateLimit.ts';
import { bearerSecurity } from './merchantSchemas.ts';
import { decryptPayload } from './payoutRoutes.ts';

interface Deps {
  tokens: TokenService;
  merchantCollections: MerchantCollectionService;
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
  app.post<RouteRequest<'POST /collection/v1/initiate'>>(
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
        ...R['POST /collection/v1/initiate'],
        response: {
          ...R['POST /collection/v1/initiate'].response,
          ...merchantErrorResponses('POST /collection/v1/initiate'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const plain = decryptPayload(request, CollectionCodes.undecryptable);
      const created = await deps.merchantCollections.initiate(session.merchant, session.scheme, plain);
      return sendEnvelope(request, reply, CollectionCodes.initiated, created);
    },
  );

  app.get<RouteRequest<'GET /collection/v1/status'>>(
    '/collection/v1/status',
    {
      // The provider interface's rules apply in order: the query is checked before the token (rule 6 comes last).
      onRequest: async (request: FastifyRequest) => {
        request.session = await resolveSession(deps.tokens, request);
      },
      preHandler: statusLimit,
      config,
      schema: {
        tags: ['collections'],
        summary: 'Status of a collection by txnId or senderId (exactly one)',
        security: bearerSecurity,
        ...R['GET /collection/v1/status'],
        response: {
          ...R['GET /collection/v1/status'].response,
          ...merchantErrorResponses('GET /collection/v1/status'),
        },
      },
    },
    async (request, reply) => {
      const { txnId, senderId } = request.query;
      const data = await deps.merchantCollections.status(request.session?.merchant ?? null, { txnId, senderId });
      return sendEnvelope(request, reply, CollectionCodes.fetched, data);
    },
  );

  app.post<RouteRequest<'POST /collection/v1/status'>>(
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
        ...R['POST /collection/v1/status'],
        response: {
          ...R['POST /collection/v1/status'].response,
          ...merchantErrorResponses('POST /collection/v1/status'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const plain = decryptPayload(request, CollectionCodes.undecryptable);
      const data = await deps.merchantCollections.status(session.merchant, {
        txnId: plain.txnId,
        senderId: plain.senderId,
      });
      return sendEnvelope(request, reply, CollectionCodes.fetched, data);
    },
  );

  app.get<RouteRequest<'GET /collection/v1/qr'>>(
    '/collection/v1/qr',
    {
      onRequest: requireMerchant(deps.tokens, CollectionCodes.unauthorized),
      config,
      schema: {
        tags: ['collections'],
        summary: 'QR code of a collection’s UPI intent link (SVG by default, PNG with format=png)',
        security: bearerSecurity,
        ...R['GET /collection/v1/qr'],
        response: { ...R['GET /collection/v1/qr'].response, ...merchantErrorResponses('GET /collection/v1/qr') },
      },
    },
    async (request, reply) => {
      const { txnId, format } = request.query;
      if (!isId('collection', txnId)) throw new RequestRejected(CollectionCodes.malformedTxnId);
      const url = await deps.merchantCollections.intentUrlOf((request.session as Session).merchant, txnId);
      if (!url) throw new RequestRejected(CollectionCodes.notFound);
      if (format === 'png') {
        return reply.type('image/png').send(await QRCode.toBuffer(url, { type: 'png', margin: 2, scale: 6 }));
      }
      return reply.type('image/svg+xml').send(await QRCode.toString(url, { type: 'svg', margin: 2 }));
    },
  );
}
