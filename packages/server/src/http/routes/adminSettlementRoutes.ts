import { formatPaise, parseRupees, ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import {
  formatDailyAt,
  formatReservePercent,
  parseDailyAt,
  parseReservePercent,
  toSettlementWire,
  type SettlementAccount,
} from '../../domain/settlement.ts';
import type { SettlementService } from '../../services/SettlementService.ts';
import { AdminError } from '../AdminError.ts';
import { readSettlements } from '../reads/settlements.ts';
import { adminError, adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

/** A settlement account as the admin API answers it. */
export function settlementAccountView(a: SettlementAccount) {
  return {
    merchant_id: a.merchantId,
    account_number: a.accountNumber,
    ifsc: a.ifsc,
    holder_name: a.holderName,
    bank_name: a.bankName,
    schedule: a.schedule,
    at: a.atMinute === null ? null : formatDailyAt(a.atMinute),
    reserve_percent: formatReservePercent(a.reserveBp),
    reserve_days: a.reserveDays,
    active_from: a.activeFrom.toISOString(),
    last_run_day: a.lastRunDay,
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}

const errors = { ...adminErrorResponses, 422: adminError };

/** A daily schedule without `at` runs at 11:00 IST; a reserve without `reserve_days` holds 7 days of collections. */
const DEFAULT_DAILY_AT_MINUTE = 11 * 60;
const DEFAULT_RESERVE_DAYS = 7;

/**
 * Settlements (docs/operator/settlements.md): the merchant's settlement account and schedule (finance, audited), the
 * settlements with their report, a manual settlement by an operator, and a scheduled pass run now.
 */
export function adminSettlementRoutes(app: FastifyInstance, deps: { settlements: SettlementService }) {
  const settlements = readSettlements(deps);

  app.put<RouteRequest<'PUT /admin/v1/merchants/:merchant_id/settlement'>>(
    '/admin/v1/merchants/:merchant_id/settlement',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'merchant.settlement' },
      schema: {
        tags: ['admin'],
        summary:
          'Set the merchant’s settlement account and schedule. A changed account (number, IFSC or holder) holds ' +
          'settlements for 24 hours (`active_from`); verified first when the merchant requires verification',
        ...R['PUT /admin/v1/merchants/:merchant_id/settlement'],
        response: { ...R['PUT /admin/v1/merchants/:merchant_id/settlement'].response, ...errors },
      },
    },
    async (request) => {
      const body = request.body;
      const schedule = body.schedule ?? 'manual';
      // `at` is the daily run's time (11:00 IST when absent, the provider's "T+1 11:00"); other schedules ignore it.
      const at = body.at === undefined ? null : parseDailyAt(body.at);
      if (body.at !== undefined && at === null) throw AdminError.invalid('at must be a time of day like "11:00" (IST)');
      const atMinute = schedule === 'daily' ? (at ?? DEFAULT_DAILY_AT_MINUTE) : null;
      const reserveBp = body.reserve_percent === undefined ? 0 : parseReservePercent(body.reserve_percent);
      if (reserveBp === null) throw AdminError.invalid('reserve_percent must be 0 to 100 with at most two decimals');
      if (reserveBp > 0 && body.reserve_days === 0) {
        throw AdminError.invalid('reserve_days must be at least 1 with a reserve_percent');
      }
      const reserveDays = body.reserve_days ?? DEFAULT_RESERVE_DAYS;
      const outcome = await deps.settlements.setAccount(request.params.merchant_id, {
        accountNumber: body.account_number,
        ifsc: body.ifsc.toUpperCase(),
        holderName: body.holder_name,
        schedule,
        atMinute,
        reserveBp,
        reserveDays: reserveBp > 0 ? reserveDays : 0,
      });
      if (!outcome.ok) {
        if (outcome.reason === 'verification_failed') throw new AdminError('verification_failed', outcome.message);
        if (outcome.reason === 'not_found') throw AdminError.notFound('merchant');
        throw AdminError.invalid('ifsc is not a known bank branch');
      }
      const a = outcome.account;
      request.auditNote =
        `settlement account ${a.ifsc} ${a.accountNumber.slice(-4).padStart(a.accountNumber.length, '•')}, ` +
        `${a.schedule}${a.atMinute === null ? '' : ` at ${formatDailyAt(a.atMinute)}`}` +
        `${a.reserveBp > 0 ? `, reserve ${formatReservePercent(a.reserveBp)}% for ${a.reserveDays} days` : ''}` +
        `${outcome.held ? `, held until ${a.activeFrom.toISOString()}` : ''}`;
      return settlementAccountView(a);
    },
  );

  app.get<RouteRequest<'GET /admin/v1/merchants/:merchant_id/settlement'>>(
    '/admin/v1/merchants/:merchant_id/settlement',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'The merchant’s settlement account and schedule (404 when none is set)',
        ...R['GET /admin/v1/merchants/:merchant_id/settlement'],
        response: { ...R['GET /admin/v1/merchants/:merchant_id/settlement'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const account = await deps.settlements.account(request.params.merchant_id);
      if (!account) throw AdminError.notFound('settlement account');
      return settlementAccountView(account);
    },
  );

  app.get<RouteRequest<'GET /admin/v1/settlements'>>(
    '/admin/v1/settlements',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'Settlements, newest first, by merchant, wallet and IST days (`from`, `to`)',
        ...R['GET /admin/v1/settlements'],
        response: { ...R['GET /admin/v1/settlements'].response, ...adminErrorResponses },
      },
    },
    async (request) => settlements.list(request.query, 'operator'),
  );

  app.get<RouteRequest<'GET /admin/v1/settlements/:settlement_id'>>(
    '/admin/v1/settlements/:settlement_id',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'One settlement with the collections it covers; `format=csv` for its report',
        ...R['GET /admin/v1/settlements/:settlement_id'],
        response: { ...R['GET /admin/v1/settlements/:settlement_id'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => settlements.answer(reply, request.params.settlement_id, request.query, 'operator'),
  );

  app.post<RouteRequest<'POST /admin/v1/settlements'>>(
    '/admin/v1/settlements',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'settlement.initiate' },
      schema: {
        tags: ['admin'],
        summary:
          'Settle a wallet now (a manual settlement by an operator): everything settleable, or `amount`; 422 ' +
          'no_settlement_account or nothing_to_settle',
        ...R['POST /admin/v1/settlements'],
        response: { ...R['POST /admin/v1/settlements'].response, ...errors },
      },
    },
    async (request, reply) => {
      let amount: bigint | null = null;
      if (request.body.amount !== undefined) {
        amount = parseRupees(request.body.amount);
        if (amount === null) throw AdminError.invalid('amount must be a positive amount like "1000.00"');
      }
      const outcome = await deps.settlements.initiate(null, request.body.wallet_id, amount);
      if (!outcome.ok) {
        if (outcome.reason === 'wallet_not_found') throw AdminError.notFound('wallet');
        if (outcome.reason === 'no_account') {
          throw new AdminError('no_settlement_account', 'No active settlement account found for the merchant');
        }
        throw new AdminError(
          'nothing_to_settle',
          'Nothing to settle: no settleable collections within the available balance (or less than amount)',
        );
      }
      request.auditNote = `settlement ${outcome.settlement.id} of ${formatPaise(outcome.settlement.amount)} from ${outcome.settlement.walletId}`;
      return reply.code(201).send(toSettlementWire(outcome.settlement, outcome.items));
    },
  );

  app.post<RouteRequest<'POST /admin/v1/settlements/run'>>(
    '/admin/v1/settlements/run',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'settlement.run' },
      schema: {
        tags: ['admin'],
        summary:
          'Run the scheduled pass now (what the worker does by itself): the daily runs that are due, then instant ' +
          'settlements',
        ...R['POST /admin/v1/settlements/run'],
        response: { ...R['POST /admin/v1/settlements/run'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const result = await deps.settlements.runDue();
      request.auditNote = `${result.settlements.length} settlements, ${result.refused.length} wallets refused`;
      return {
        settlements: result.settlements.map((s) => toSettlementWire(s)),
        refused: result.refused.map((r) => ({ wallet_id: r.walletId, reason: r.reason })),
      };
    },
  );
}
