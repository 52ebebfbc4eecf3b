import { formatPaise, ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { FeeFigures } from '../../domain/feeReport.ts';
import type { PlatformService } from '../../services/PlatformService.ts';
import { AdminError } from '../AdminError.ts';
import { csvText } from '../csv.ts';
import { present } from '../queryParams.ts';
import { adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

const figures = (f: FeeFigures) => ({ count: Number(f.count), fees: formatPaise(f.fees), tax: formatPaise(f.tax) });

/**
 * The platform's own books (docs/operator/charging-merchants.md, "Platform wallets and fee reports"): the balances
 * of its wallets, and the fees and GST it earned by IST day, merchant or product (JSON or CSV).
 */
export function adminPlatformRoutes(app: FastifyInstance, deps: { platform: PlatformService }) {
  app.get(
    '/admin/v1/platform/wallets',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: "The platform's wallets (fees, gst, recovery) and their balances",
        ...R['GET /admin/v1/platform/wallets'],
        response: { ...R['GET /admin/v1/platform/wallets'].response, ...adminErrorResponses },
      },
    },
    async () => {
      const all = await deps.platform.wallets();
      // The commercial wallets (fees, gst, recovery) as the list; the suspense wallet beside them: it holds money
      // from outside on its way back (return_to_sender), not the platform's earnings.
      const suspense = all.find((w) => w.kind === 'suspense');
      return {
        wallets: all
          .filter((w) => w.kind !== 'suspense')
          .map((w) => ({ kind: w.kind, wallet_id: w.walletId, balance: formatPaise(w.balance) })),
        ...(suspense ? { suspense: { wallet_id: suspense.walletId, balance: formatPaise(suspense.balance) } } : {}),
      };
    },
  );

  app.get<RouteRequest<'GET /admin/v1/platform/fees'>>(
    '/admin/v1/platform/fees',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary:
          'Fees and GST earned, net of refunds, over IST days from..to (inclusive, at most 366) by day, merchant or product; CSV',
        ...R['GET /admin/v1/platform/fees'],
        response: { ...R['GET /admin/v1/platform/fees'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const group = q.group ?? 'day';
      const outcome = await deps.platform.feeReport({
        from: present(q.from) ? q.from : undefined,
        to: present(q.to) ? q.to : undefined,
        group,
        merchantId: present(q.merchant_id) ? q.merchant_id : undefined,
      });
      if (!outcome.ok) throw AdminError.invalid(outcome.message);
      const { report } = outcome;
      if (q.format === 'csv') {
        const money = (f: FeeFigures) => [String(f.count), formatPaise(f.fees), formatPaise(f.tax)];
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header(
            'content-disposition',
            `attachment; filename="platform-fees-${report.window.from}-${report.window.to}-by-${group}.csv"`,
          )
          .send(
            csvText([
              [group, 'count', 'fees', 'tax'],
              ...report.rows.map((r) => [r.key, ...money(r)]),
              ['total', ...money(report.total)],
            ]),
          );
      }
      return reply.send({
        from: report.window.from,
        to: report.window.to,
        group,
        rows: report.rows.map((r) => ({ key: r.key, ...figures(r) })),
        total: figures(report.total),
      });
    },
  );
}
