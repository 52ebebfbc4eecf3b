import { INVOICE_FORMATS, isId, type FromSchema, type invoiceFormatQuery } from '@payrail/protocol';
import type { FastifyReply } from 'fastify';
import { INVOICE_ID_PATTERN } from '../../domain/ids.ts';
import type { Invoice, InvoiceService } from '../../services/InvoiceService.ts';
import { AdminError } from '../AdminError.ts';
import { readPage, textCursor } from '../pageCursor.ts';
import { invoiceCsv } from '../views/invoiceCsv.ts';
import { invoicePdf } from '../views/invoicePdf.ts';
import { invoiceFileName, invoiceView } from '../views/invoiceView.ts';
import { merchantScopeOf, operatorFilters, type ReadScope } from './readScope.ts';

const invoiceCursor = textCursor(
  (key) => INVOICE_ID_PATTERN.test(key),
  (i: Invoice) => i.id,
);

/** The invoice reads of the admin API and the merchant console: the same answers, each in its scope. */
export function readInvoices(deps: { invoices: InvoiceService }) {
  return {
    /** A page of invoices, newest first; the operator filters by merchant, both by month. */
    async list(q: { merchant_id?: string; month?: string; limit?: string; cursor?: string }, scope: ReadScope) {
      const merchantId = q.merchant_id || undefined;
      if (scope === 'operator' && merchantId !== undefined && !isId('merchant', merchantId)) {
        throw AdminError.invalid('merchant_id is not a merchant id');
      }
      const page = await readPage(q, invoiceCursor, (limit, after) =>
        deps.invoices.page(
          { ...operatorFilters(scope, { merchantId }), month: q.month || undefined, limit, after },
          merchantScopeOf(scope),
        ),
      );
      return { ...page, data: page.data.map(invoiceView) };
    },

    /** One invoice as JSON, PDF or CSV (`format`); 404 for none or (in a merchant's scope) another merchant's. */
    async answer(reply: FastifyReply, id: string, q: FromSchema<typeof invoiceFormatQuery>, scope: ReadScope) {
      const format = q.format ?? 'json';
      if (!(INVOICE_FORMATS as readonly string[]).includes(format)) {
        throw AdminError.invalid(`format must be one of ${INVOICE_FORMATS.join(', ')}`);
      }
      const invoice = await deps.invoices.get(id, merchantScopeOf(scope));
      if (!invoice) throw AdminError.notFound('invoice');
      if (format === 'pdf') {
        return reply
          .header('content-type', 'application/pdf')
          .header('content-disposition', `attachment; filename="${invoiceFileName(invoice, 'pdf')}"`)
          .send(await invoicePdf(invoice));
      }
      if (format === 'csv') {
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${invoiceFileName(invoice, 'csv')}"`)
          .send(invoiceCsv(invoice));
      }
      return reply.send(invoiceView(invoice));
    },
  };
}
