import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { depositWire, normalIfsc, parseDepositReport, type Deposit } from '../../domain/deposit.ts';
import type { DepositService } from '../../services/DepositService.ts';
import { AdminError } from '../AdminError.ts';
import { readPage, textCursor } from '../pageCursor.ts';
import { adminError, adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';
import { exceptionView } from './adminExceptionRoutes.ts';

/** A deposit's id (DP + ULID) as a cursor carries it. */
const depositCursor = textCursor(
  (key) => /^DP[0-9A-HJKMNP-TV-Z]{26}$/.test(key),
  (d: Deposit) => d.id,
);

const remittersView = (merchantId: string, accounts: { accountNumber: string; ifsc: string }[]) => ({
  merchant_id: merchantId,
  accounts: accounts.map((a) => ({ account_number: a.accountNumber, ifsc: a.ifsc })),
});

/**
 * Deposits (docs/merchant/funding-a-wallet.md): a merchant's allowed remitters (finance sets them, every role reads
 * them) and, in sandbox mode only, a bank credit to a virtual account made up by an operator.
 */
export function adminDepositRoutes(
  app: FastifyInstance,
  deps: { deposits: DepositService; config: { mode: 'sandbox' | 'live' } },
) {
  app.put<RouteRequest<'PUT /admin/v1/merchants/:merchant_id/allowed-remitters'>>(
    '/admin/v1/merchants/:merchant_id/allowed-remitters',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'merchant.allowed_remitters' },
      schema: {
        tags: ['admin'],
        summary:
          'Set the accounts a merchant accepts deposits from (replaces the list; an empty list accepts every remitter)',
        ...R['PUT /admin/v1/merchants/:merchant_id/allowed-remitters'],
        response: {
          ...R['PUT /admin/v1/merchants/:merchant_id/allowed-remitters'].response,
          ...adminErrorResponses,
          403: adminError,
        },
      },
    },
    async (request) => {
      const { merchant_id } = request.params;
      const accounts = request.body.accounts.map((a) => ({
        accountNumber: a.account_number,
        ifsc: normalIfsc(a.ifsc),
      }));
      if (!(await deps.deposits.setAllowedRemitters(merchant_id, accounts))) throw AdminError.notFound('merchant');
      request.auditNote = `${accounts.length} allowed remitters for ${merchant_id}`;
      return remittersView(merchant_id, await deps.deposits.allowedRemitters(merchant_id));
    },
  );

  app.get<RouteRequest<'GET /admin/v1/merchants/:merchant_id/allowed-remitters'>>(
    '/admin/v1/merchants/:merchant_id/allowed-remitters',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'The accounts a merchant accepts deposits from (empty: every remitter)',
        ...R['GET /admin/v1/merchants/:merchant_id/allowed-remitters'],
        response: { ...R['GET /admin/v1/merchants/:merchant_id/allowed-remitters'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { merchant_id } = request.params;
      return remittersView(merchant_id, await deps.deposits.allowedRemitters(merchant_id));
    },
  );

  app.get<RouteRequest<'GET /admin/v1/wallets/:wallet_id/deposits'>>(
    '/admin/v1/wallets/:wallet_id/deposits',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'The deposits credited to a merchant wallet, newest first (paged: limit, cursor)',
        ...R['GET /admin/v1/wallets/:wallet_id/deposits'],
        response: { ...R['GET /admin/v1/wallets/:wallet_id/deposits'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { wallet_id } = request.params;
      let found = true;
      const page = await readPage(request.query, depositCursor, async (limit, before) => {
        const rows = await deps.deposits.pageByWallet(wallet_id, limit, before);
        found = rows !== null;
        return rows ?? [];
      });
      if (!found) throw AdminError.notFound('wallet');
      return { ...page, data: page.data.map(depositWire) };
    },
  );

  if (deps.config.mode !== 'sandbox') return;
  app.post<RouteRequest<'POST /admin/v1/sandbox/deposits'>>(
    '/admin/v1/sandbox/deposits',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'admin', audit: 'sandbox.deposit' },
      schema: {
        tags: ['admin'],
        summary:
          'Sandbox only: a bank credit to a virtual account, as the collection bank would report it (once per UTR)',
        description:
          '200: the deposit (credited now, or `duplicate` when this UTR was credited before: nothing changed). 202: not credited, recorded as the exception (an unknown virtual account or check digit, a remitter not on the allowed list).',
        ...R['POST /admin/v1/sandbox/deposits'],
        response: { ...R['POST /admin/v1/sandbox/deposits'].response, ...adminErrorResponses, 403: adminError },
      },
    },
    async (request, reply) => {
      const parsed = parseDepositReport(request.body as Record<string, unknown>, { creditedAt: false });
      if (!parsed.ok) throw AdminError.invalid(parsed.message);
      const outcome = await deps.deposits.receive(parsed.report, 'sandbox');
      if (outcome.kind === 'excepted') {
        request.auditNote = `${parsed.report.utr}: ${outcome.exception.kind} ${outcome.exception.id}`;
        return reply.code(202).send(exceptionView(outcome.exception));
      }
      request.auditNote = `${parsed.report.utr}: ${outcome.deposit.id}${outcome.duplicate ? ' (credited before)' : ''}`;
      return { ...depositWire(outcome.deposit), duplicate: outcome.duplicate };
    },
  );
}
