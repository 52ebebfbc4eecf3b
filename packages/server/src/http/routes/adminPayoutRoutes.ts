import { formatPaise, ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { MerchantService } from '../../services/MerchantService.ts';
import type { PayoutAdminService } from '../../services/PayoutAdminService.ts';
import type { WebhookAdminService } from '../../services/WebhookAdminService.ts';
import { AdminError } from '../AdminError.ts';
import { readPayouts } from '../reads/payouts.ts';
import { adminPayoutView } from '../views/adminPayoutView.ts';
import {
  adminAuthErrorResponses,
  adminError,
  adminErrorResponses,
  historyActor,
  adminRouteOptions,
} from './adminSchemas.ts';

/** Operator routes for payouts and the ledger (docs/operator/admin-api.md). */
export function adminPayoutRoutes(
  app: FastifyInstance,
  deps: { payoutAdmin: PayoutAdminService; merchants: MerchantService; webhookAdmin: WebhookAdminService },
) {
  const payouts = readPayouts(deps);
  app.get<RouteRequest<'GET /admin/v1/payouts'>>(
    '/admin/v1/payouts',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'List payouts, newest first, with cursor pagination',
        ...R['GET /admin/v1/payouts'],
        response: { ...R['GET /admin/v1/payouts'].response, ...adminErrorResponses },
      },
    },
    async (request) => payouts.list(request.query, 'operator'),
  );

  app.get<RouteRequest<'GET /admin/v1/payouts/:transaction_id'>>(
    '/admin/v1/payouts/:transaction_id',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'One payout',
        ...R['GET /admin/v1/payouts/:transaction_id'],
        response: { ...R['GET /admin/v1/payouts/:transaction_id'].response, ...adminErrorResponses },
      },
    },
    async (request) => payouts.get(request.params.transaction_id, 'operator'),
  );

  app.get<RouteRequest<'GET /admin/v1/payouts/:transaction_id/timeline'>>(
    '/admin/v1/payouts/:transaction_id/timeline',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'History of a payout: creation, status changes, connector errors, webhook attempts (oldest first)',
        ...R['GET /admin/v1/payouts/:transaction_id/timeline'],
        response: { ...R['GET /admin/v1/payouts/:transaction_id/timeline'].response, ...adminErrorResponses },
      },
    },
    async (request) => payouts.timeline(request.params.transaction_id, 'operator'),
  );

  app.post<RouteRequest<'POST /admin/v1/payouts/:transaction_id/resolve'>>(
    '/admin/v1/payouts/:transaction_id/resolve',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'payout.resolve' },
      schema: {
        tags: ['admin'],
        summary: 'Resolve a PENDING payout (and PROCESSING in live mode) as SUCCESS or FAILED',
        ...R['POST /admin/v1/payouts/:transaction_id/resolve'],
        response: { ...R['POST /admin/v1/payouts/:transaction_id/resolve'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { transaction_id } = request.params;
      const body = request.body;
      const outcome = await deps.payoutAdmin.resolve(
        transaction_id,
        body.status,
        body.utr_number,
        historyActor(request),
      );
      if (outcome.ok) return adminPayoutView(outcome.payout);
      if (outcome.reason === 'not_found') throw AdminError.notFound('payout');
      throw new AdminError('invalid_state', `payout is ${outcome.status}; only a PENDING payout can be resolved`);
    },
  );

  app.post<RouteRequest<'POST /admin/v1/payouts/:transaction_id/return'>>(
    '/admin/v1/payouts/:transaction_id/return',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'payout.return' },
      schema: {
        tags: ['admin'],
        summary: 'Record that the bank returned the money of a SUCCESS payout (SUCCESS → REFUNDED)',
        description:
          'For a transfer the beneficiary bank sent back after it succeeded (account closed, beneficiary refused). The amount comes back to the wallet once, the payout keeps its UTR, its status_message says why, the merchant gets payout.refunded, and the amount no longer counts toward the daily and monthly allowances. A payout returned already answers 200 as it is. Needs the finance role.',
        ...R['POST /admin/v1/payouts/:transaction_id/return'],
        response: {
          ...R['POST /admin/v1/payouts/:transaction_id/return'].response,
          ...adminErrorResponses,
          403: { ...adminError, description: 'forbidden: needs the finance role' },
          409: {
            ...adminError,
            description: 'invalid_state: the payout is neither SUCCESS nor returned (REFUNDED after a failure too)',
          },
        },
      },
    },
    async (request) => {
      const { transaction_id } = request.params;
      const { reason } = request.body;
      // The reason is the point of the action: kept in the audit log with it.
      request.auditNote = `reason: ${JSON.stringify(reason)}`;
      const outcome = await deps.payoutAdmin.returnPayout(transaction_id, reason.trim(), historyActor(request));
      if (outcome.ok) return adminPayoutView(outcome.payout);
      if (outcome.reason === 'not_found') throw AdminError.notFound('payout');
      throw new AdminError('invalid_state', `payout is ${outcome.status}; only a SUCCESS payout can be returned`);
    },
  );

  app.get(
    '/admin/v1/ledger/verify',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary:
          "Check every wallet's balance (the platform's included) against the sum of its ledger entries, and that each double-entry kind sums to zero",
        ...R['GET /admin/v1/ledger/verify'],
        response: { ...R['GET /admin/v1/ledger/verify'].response, ...adminAuthErrorResponses },
      },
    },
    async (req) => {
      // The answer has the same fields either way (integrations compare it whole); the query says how it was added.
      const result = await deps.payoutAdmin.verifyLedger((req.query as { full?: string }).full === 'true');
      return {
        ok: result.mismatches.length === 0 && result.unbalancedKinds.length === 0,
        wallets_checked: result.walletsChecked,
        platform_wallets_checked: result.platformWalletsChecked,
        mismatches: result.mismatches,
        unbalanced_kinds: result.unbalancedKinds.map((k) => ({ kind: k.kind, sum: formatPaise(k.sum) })),
      };
    },
  );
}
