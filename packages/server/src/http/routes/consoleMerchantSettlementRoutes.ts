import type { RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { formatDailyAt } from '../../domain/settlement.ts';
import type { SettlementService } from '../../services/SettlementService.ts';
import { AdminError } from '../AdminError.ts';
import { readSettlements } from '../reads/settlements.ts';
import { adminError } from './adminSchemas.ts';
import { settlementAccountView } from './adminSettlementRoutes.ts';
import { consoleMerchantRoute, merchantOf, scopeOf } from './consoleMerchantOptions.ts';

/**
 * The merchant's settlements (docs/merchant/settlements.md): its own settlements with the collections they cover and
 * their report (the operator's reads in its scope), and its settlement account, which the merchant sets or changes
 * itself (audited; a change holds settlements for 24 hours). The schedule and the reserve stay the operator's.
 */
export function consoleMerchantSettlementRoutes(scope: FastifyInstance, deps: { settlements: SettlementService }) {
  const settlements = readSettlements(deps);

  scope.get<RouteRequest<'GET /console/api/merchant/settlements'>>(
    '/console/api/merchant/settlements',
    consoleMerchantRoute(
      'GET /console/api/merchant/settlements',
      "The merchant's settlements, newest first, by wallet and IST days (`from`, `to`)",
    ),
    async (request) => settlements.list(request.query, scopeOf(request)),
  );

  scope.get<RouteRequest<'GET /console/api/merchant/settlements/:settlement_id'>>(
    '/console/api/merchant/settlements/:settlement_id',
    consoleMerchantRoute(
      'GET /console/api/merchant/settlements/:settlement_id',
      'One of the merchant’s settlements with the collections it covers; `format=csv` for its report',
    ),
    // Looked up under the signed-in merchant only: another merchant's settlement answers 404.
    async (request, reply) => settlements.answer(reply, request.params.settlement_id, request.query, scopeOf(request)),
  );

  scope.get(
    '/console/api/merchant/settlement',
    consoleMerchantRoute(
      'GET /console/api/merchant/settlement',
      'The merchant’s settlement account and schedule (404 when none is set)',
    ),
    async (request) => {
      const account = await deps.settlements.account(merchantOf(request).id);
      if (!account) throw AdminError.notFound('settlement account');
      return settlementAccountView(account);
    },
  );

  const put = consoleMerchantRoute(
    'PUT /console/api/merchant/settlement',
    'Set or change the merchant’s settlement account (needs X-CSRF-Token). A change holds settlements for 24 hours ' +
      '(`active_from`); verified first when the merchant requires verification (422 verification_failed). The ' +
      'schedule and the reserve stay as the operator set them',
    'merchant.settlement',
  );
  scope.put<RouteRequest<'PUT /console/api/merchant/settlement'>>(
    '/console/api/merchant/settlement',
    { ...put, schema: { ...put.schema, response: { ...put.schema.response, 422: adminError } } },
    async (request) => {
      const merchantId = merchantOf(request).id;
      const body = request.body;
      // The schedule and reserve are the operator's: kept as they are (a first account starts manual, no reserve).
      const outcome = await deps.settlements.setAccount(
        merchantId,
        {
          accountNumber: body.account_number,
          ifsc: body.ifsc.toUpperCase(),
          holderName: body.holder_name,
          schedule: 'manual',
          atMinute: null,
          reserveBp: 0,
          reserveDays: 0,
        },
        { keepTerms: true },
      );
      if (!outcome.ok) {
        if (outcome.reason === 'verification_failed') throw new AdminError('verification_failed', outcome.message);
        if (outcome.reason === 'not_found') throw AdminError.notFound('merchant');
        throw AdminError.invalid('ifsc is not a known bank branch');
      }
      const a = outcome.account;
      request.auditNote =
        `settlement account ${a.ifsc} ${a.accountNumber.slice(-4).padStart(a.accountNumber.length, '•')}, ` +
        `${a.schedule}${a.atMinute === null ? '' : ` at ${formatDailyAt(a.atMinute)}`}` +
        `${outcome.held ? `, held until ${a.activeFrom.toISOString()}` : ''}`;
      return settlementAccountView(a);
    },
  );
}
