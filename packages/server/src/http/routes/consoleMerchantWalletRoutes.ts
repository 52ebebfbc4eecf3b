import { formatPaise, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { DepositService } from '../../services/DepositService.ts';
import type { Lien, LienService } from '../../services/LienService.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import type { StatsService } from '../../services/StatsService.ts';
import type { WalletStatementService } from '../../services/WalletStatementService.ts';
import { answerStatement } from '../answerStatement.ts';
import { merchantJson } from '../views/merchantJson.ts';
import { statsView } from '../views/statsView.ts';
import { consoleMerchantRoute, merchantOf, scopeOf } from './consoleMerchantOptions.ts';

/**
 * What a merchant sees of a lien on its wallet: "On hold by the operator", how much and why, never who placed it
 * (docs/operator/liens.md). Only liens that hold money now: a pending, released or expired one holds nothing.
 */
const holdView = (l: Lien) => ({
  amount: formatPaise(l.remaining),
  reason: l.reason,
  expires_at: l.expiresAt?.toISOString() ?? null,
  since: l.createdAt.toISOString(),
});

/**
 * The merchant's wallets: the overview (balances, money on hold, liens and what can be spent, the last day's payouts)
 * and statements.
 */
export function consoleMerchantWalletRoutes(
  scope: FastifyInstance,
  deps: {
    merchants: MerchantService;
    stats: StatsService;
    statements: WalletStatementService;
    deposits: DepositService;
    liens: LienService;
  },
) {
  scope.get(
    '/console/api/merchant/overview',
    consoleMerchantRoute(
      'GET /console/api/merchant/overview',
      "The merchant's wallets with balance, money on hold, the operator's holds (liens) and what can be spent, and its last 24 hours of payouts",
    ),
    async (request) => {
      const m = merchantOf(request);
      const wallets = await deps.merchants.wallets(m.id);
      const held = await Promise.all(wallets.map((w) => deps.merchants.onHold(w.id)));
      // Read per wallet of this merchant only (merchants.wallets above): never another merchant's liens.
      const liens = await Promise.all(wallets.map(async (w) => (await deps.liens.list(w.id)) ?? []));
      return {
        merchant: merchantJson(m),
        wallets: wallets.map((w, i) => {
          // "Add money": the wallet's virtual account, in the merchant's name (docs/merchant/funding-a-wallet.md).
          const va = deps.deposits.virtualAccountOf(w);
          const holds = (liens[i] as Lien[]).filter((l) => l.state === 'active' && l.remaining > 0n);
          const onLien = holds.reduce((sum, l) => sum + l.remaining, 0n);
          return {
            wallet_id: w.id,
            balance: formatPaise(w.balance),
            on_hold: formatPaise(held[i] as bigint),
            on_lien: formatPaise(onLien),
            available_balance: formatPaise(w.balance - onLien),
            holds: holds.map(holdView),
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
      "Statement of one of the merchant's wallets (format=json, or csv and jsonl streamed with no entry limit)",
    ),
    async (request, reply) => {
      const { wallet_id } = request.params;
      return answerStatement(reply, deps.statements, wallet_id, request.query, scopeOf(request));
    },
  );
}
