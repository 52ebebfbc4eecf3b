import { ROUTE_SCHEMAS as R } from '@payrail/protocol';
import { formatPaise } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { Stats, StatsService } from '../../services/StatsService.ts';
import type { WalletStatementService } from '../../services/WalletStatementService.ts';
import { adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';
import { answerStatement, type StatementQuery } from './walletStatementAnswer.ts';

export const statsView = (s: Stats) => ({
  window_start: s.windowStart.toISOString(),
  window_end: s.windowEnd.toISOString(),
  payouts_per_hour: s.hours.map((h) => ({ hour: h.hour.toISOString(), ...h.counts })),
  payouts_by_status: s.totals,
  success_rate: s.successRate,
  webhook_backlog: s.webhookBacklog,
  money_on_hold: formatPaise(s.moneyOnHold.amount),
  payouts_on_hold: s.moneyOnHold.count,
});

/** What the console's overview and wallet views read: stats and wallet statements. */
export function adminConsoleRoutes(
  app: FastifyInstance,
  deps: { stats: StatsService; statements: WalletStatementService },
) {
  app.get(
    '/admin/v1/stats',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['console'],
        summary: 'Payouts per status per hour over the last 24 hours, success rate, webhook backlog and money on hold',
        ...R['GET /admin/v1/stats'],
        response: { ...R['GET /admin/v1/stats'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { merchant_id } = request.query as { merchant_id?: string };
      return statsView(await deps.stats.stats(merchant_id || undefined));
    },
  );

  app.get(
    '/admin/v1/wallets/:wallet_id/statement',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['console'],
        summary:
          'Wallet statement: opening balance, entries with running balance, closing balance (format=json or csv)',
        ...R['GET /admin/v1/wallets/:wallet_id/statement'],
        response: { ...R['GET /admin/v1/wallets/:wallet_id/statement'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => {
      const { wallet_id } = request.params as { wallet_id: string };
      return answerStatement(reply, deps.statements, wallet_id, request.query as StatementQuery);
    },
  );
}
