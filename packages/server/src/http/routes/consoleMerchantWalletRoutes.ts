import { formatPaise, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { DepositService } from '../../services/DepositService.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import type { StatsService } from '../../services/StatsService.ts';
import type { WalletStatementService } from '../../services/WalletStatementService.ts';
import { answerStatement } from '../answerStatement.ts';
import { merchantJson } from '../views/merchantJson.ts';
import { statsView } from '../views/statsView.ts';
import { consoleMerchantRoute, merchantOf, scopeOf } from './consoleMerchantOptions.ts';

/** The merchant's wallets: the overview (balances, money on hold, the last day's payouts) and statements. */
export function consoleMerchantWalletRoutes(
  scope: FastifyInstance,
  deps: {
    merchants: MerchantService;
    stats: StatsService;
    statements: WalletStatementService;
    deposits: DepositService;
  },
) {
  scope.get(
    '/console/api/merchant/overview',
    consoleMerchantRoute(
      'GET /console/api/merchant/overview',
      "The merchant's wallets with balance and money on hold, and its last 24 hours of payouts",
    ),
    async (request) => {
      const m = merchantOf(request);
      const wallets = await deps.merchants.wallets(m.id);
      const held = await Promise.all(wallets.map((w) => deps.merchants.onHold(w.id)));
      return {
        merchant: merchantJson(m),
        wallets: wallets.map((w, i) => {
          // "Add money": the wallet's virtual account, in the merchant's name (docs/merchant/funding-a-wallet.md).
          const va = deps.deposits.virtualAccountOf(w);
          return {
            wallet_id: w.id,
            balance: formatPaise(w.balance),
            on_hold: formatPaise(held[i] as bigint),
            currency: 'INR',
            ...(va ? { virtual_account: { ...va, name: m.name } } : {}),
          };
        }),
        stats: statsView(await deps.stats.stats(scopeOf(request))),
      };
    },
  );

  scope.get<RouteRequest<'GET /console/api/merchant/wallets/:wallet_id/statement'>>(
    '/console/api/merchant/wallets/:wallet_id/statement',
    consoleMerchantRoute(
      'GET /console/api/merchant/wallets/:wallet_id/statement',
      "Statement of one of the merchant's wallets (format=json or csv)",
    ),
    async (request, reply) => {
      const { wallet_id } = request.params;
      return answerStatement(reply, deps.statements, wallet_id, request.query, scopeOf(request));
    },
  );
}
