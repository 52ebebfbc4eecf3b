import { isId, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import QRCode from 'qrcode';
import type { CollectionReads } from '../../services/CollectionReads.ts';
import type { MerchantCollectionService } from '../../services/MerchantCollectionService.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import { AdminError } from '../AdminError.ts';
import { readCollections } from '../reads/collections.ts';
import { consoleMerchantRoute, merchantOf, scopeOf } from './consoleMerchantOptions.ts';

/** The merchant's collections: the operator's reads (adminCollectionRoutes.ts) in its scope, and their QR codes. */
export function consoleMerchantCollectionRoutes(
  scope: FastifyInstance,
  deps: { collections: CollectionReads; merchants: MerchantService; merchantCollections: MerchantCollectionService },
) {
  const collections = readCollections(deps);

  scope.get<RouteRequest<'GET /console/api/merchant/collections'>>(
    '/console/api/merchant/collections',
    consoleMerchantRoute('GET /console/api/merchant/collections', "The merchant's collections, newest first"),
    async (request) => collections.list(request.query, scopeOf(request)),
  );

  scope.get<RouteRequest<'GET /console/api/merchant/collections/:txnId'>>(
    '/console/api/merchant/collections/:txnId',
    consoleMerchantRoute(
      'GET /console/api/merchant/collections/:txnId',
      'One of the merchant’s collections (404 for another merchant’s or none)',
    ),
    async (request) => collections.get(request.params.txnId, scopeOf(request)),
  );

  scope.get<RouteRequest<'GET /console/api/merchant/collections/:txnId/qr'>>(
    '/console/api/merchant/collections/:txnId/qr',
    consoleMerchantRoute(
      'GET /console/api/merchant/collections/:txnId/qr',
      'QR code (SVG) of one of the merchant’s collections: its UPI intent link',
    ),
    async (request, reply) => {
      const { txnId } = request.params;
      const url = isId('collection', txnId)
        ? await deps.merchantCollections.intentUrlOf(merchantOf(request), txnId)
        : null;
      if (!url) throw AdminError.notFound('collection');
      // Private: the image carries the payee and amount of one merchant's collection.
      reply.header('cache-control', 'private, no-store').type('image/svg+xml');
      return reply.send(await QRCode.toString(url, { type: 'svg', margin: 2 }));
    },
  );
}
