import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { InvoiceMonthRefused, InvoiceSettingsMissing, type InvoiceService } from '../../services/InvoiceService.ts';
import { AdminError } from '../AdminError.ts';
import { readInvoices } from '../reads/invoices.ts';
import { invoiceView } from '../views/invoiceView.ts';
import { adminError, adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

/**
 * Monthly GST tax invoices (docs/operator/charging-merchants.md, "Tax invoices"): finance runs a month (once; again
 * answers what it issued), viewers list and read them as JSON, PDF or CSV.
 */
export function adminInvoiceRoutes(app: FastifyInstance, deps: { invoices: InvoiceService }) {
  const invoices = readInvoices(deps);

  app.post<RouteRequest<'POST /admin/v1/invoices/run'>>(
    '/admin/v1/invoices/run',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'invoice.run' },
      schema: {
        tags: ['admin'],
        summary:
          'Issue the tax invoices of an IST month that has begun: one per merchant with fees or credits not ' +
          'invoiced yet, charged before the month ends; the same month again answers the invoices it issued',
        ...R['POST /admin/v1/invoices/run'],
        response: {
          ...R['POST /admin/v1/invoices/run'].response,
          ...adminErrorResponses,
          403: adminError,
          409: { ...adminError, description: 'invoice_settings_missing: the operator’s PAYRAIL_OPERATOR_* settings' },
        },
      },
    },
    async (request) => {
      const { month } = request.body;
      try {
        const run = await deps.invoices.run(month);
        request.auditNote = run.alreadyRun
          ? `${month} was run before: ${run.invoices.length} invoices`
          : `${month}: issued ${run.invoices.length} invoices`;
        return { month: run.month, already_run: run.alreadyRun, invoices: run.invoices.map(invoiceView) };
      } catch (err) {
        if (err instanceof InvoiceMonthRefused) throw AdminError.invalid(err.message);
        if (err instanceof InvoiceSettingsMissing) {
          throw new AdminError(
            'invoice_settings_missing',
            `Invoices cannot be issued before the operator's settings are set: ${err.missing.join(', ')}`,
          );
        }
        throw err;
      }
    },
  );

  app.get<RouteRequest<'GET /admin/v1/invoices'>>(
    '/admin/v1/invoices',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'Tax invoices, newest first: filters merchant_id and month (YYYY-MM)',
        ...R['GET /admin/v1/invoices'],
        response: { ...R['GET /admin/v1/invoices'].response, ...adminErrorResponses },
      },
    },
    async (request) => invoices.list(request.query, 'operator'),
  );

  app.get<RouteRequest<'GET /admin/v1/invoices/:invoice_id'>>(
    '/admin/v1/invoices/:invoice_id',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'One tax invoice: JSON, or format=pdf (application/pdf) or format=csv (a row per line)',
        ...R['GET /admin/v1/invoices/:invoice_id'],
        response: { ...R['GET /admin/v1/invoices/:invoice_id'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => invoices.answer(reply, request.params.invoice_id, request.query, 'operator'),
  );
}
