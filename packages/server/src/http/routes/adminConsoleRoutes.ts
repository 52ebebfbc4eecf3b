import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { StatsService } from '../../services/StatsService.ts';
import type { WalletStatementService } from '../../services/WalletStatementService.ts';
import { answerStatement } from '../answerStatement.ts';
import { statsView } from '../views/statsView.ts';
import { adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

/** What the console's overview and wallet views read: stats and wallet statements. */
export function adminConsoleRoutes(
  app: FastifyInstance,
  deps: { stats: StatsService; statements: WalletStatementService },
) {
  app.get<RouteRequest<'GET /admin/v1/stats'>>(
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
      const { merchant_id } = request.query;
      // The operator's merchant filter narrows the numbers as a merchant's own scope would.
      return statsView(await deps.stats.stats(merchant_id ? { merchantId: merchant_id } : undefined));
    },
  );

  app.get<RouteRequest<'GET /admin/v1/wallets/:wallet_id/statement'>>(
    '/admin/v1/wallets/:wallet_id/statement',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['console'],
        summary:
          'Wallet statement: opening balance, entries with running balance, closing balance (format=json, or csv and jsonl streamed with no entry limit)',
        ...R['GET /admin/v1/wallets/:wallet_id/statement'],
        response: { ...R['GET /admin/v1/wallets/:wallet_id/statement'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => {
      const { wallet_id } = request.params;
      return answerStatement(reply, deps.statements, wallet_id, request.query);
    },
  );
}
