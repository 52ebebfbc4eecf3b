import type { RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { InvoiceService } from '../../services/InvoiceService.ts';
import { readInvoices } from '../reads/invoices.ts';
import { consoleMerchantRoute, scopeOf } from './consoleMerchantOptions.ts';

/** The merchant's tax invoices: the operator's reads (adminInvoiceRoutes.ts) in its scope, to see and download. */
export function consoleMerchantInvoiceRoutes(scope: FastifyInstance, deps: { invoices: InvoiceService }) {
  const invoices = readInvoices(deps);

  scope.get<RouteRequest<'GET /console/api/merchant/invoices'>>(
    '/console/api/merchant/invoices',
    consoleMerchantRoute('GET /console/api/merchant/invoices', "The merchant's tax invoices, newest first"),
    async (request) => invoices.list(request.query, scopeOf(request)),
  );

  scope.get<RouteRequest<'GET /console/api/merchant/invoices/:invoice_id'>>(
    '/console/api/merchant/invoices/:invoice_id',
    consoleMerchantRoute(
      'GET /console/api/merchant/invoices/:invoice_id',
      'One of the merchant’s tax invoices: JSON, or format=pdf or format=csv to download',
    ),
    // Looked up under the signed-in merchant only: another merchant's invoice is simply not there.
    async (request, reply) => invoices.answer(reply, request.params.invoice_id, request.query, scopeOf(request)),
  );
}
