import { formatPaise, ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { EXCEPTION_ID_PATTERN } from '../../domain/ids.ts';
import { allowedActions, type ExceptionRecord, type ExceptionService } from '../../services/ExceptionService.ts';
import { AdminError } from '../AdminError.ts';
import { createdRange } from '../consoleListing.ts';
import { maskAccountNumbers, seesFullAccountNumbers } from '../../domain/accountMasking.ts';
import { csvText } from '../csv.ts';
import { readPage, textCursor } from '../pageCursor.ts';
import { present } from '../queryParams.ts';
import { adminError, adminErrorResponses, adminRouteOptions, historyActor } from './adminSchemas.ts';

/** An exception as the API answers it: ids and the resolution only when there are any. */
export const exceptionView = (e: ExceptionRecord) => ({
  exception_id: e.id,
  kind: e.kind,
  state: e.state,
  source: e.source,
  ...(e.sourceRef ? { source_ref: e.sourceRef } : {}),
  ...(e.merchantId ? { merchant_id: e.merchantId } : {}),
  ...(e.payoutId ? { payout_id: e.payoutId } : {}),
  ...(e.walletId ? { wallet_id: e.walletId } : {}),
  ...(e.amount === null ? {} : { amount: formatPaise(e.amount) }),
  reported: e.reported,
  held: e.held,
  reason: e.reason,
  created_at: e.createdAt.toISOString(),
  allowed_actions: allowedActions(e),
  ...(e.resolvedAt
    ? {
        resolution: {
          action: e.resolutionAction,
          reason: e.resolutionReason,
          by: e.resolvedBy,
          at: e.resolvedAt.toISOString(),
        },
      }
    : {}),
  ...(e.returnPayoutId ? { return_payout_id: e.returnPayoutId } : {}),
  ...(e.reopenedAt ? { reopened: { at: e.reopenedAt.toISOString(), reason: e.reopenReason } } : {}),
});

const CSV_HEADER = [
  'exception_id',
  'kind',
  'state',
  'source',
  'source_ref',
  'merchant_id',
  'payout_id',
  'wallet_id',
  'amount',
  'reason',
  'reported',
  'held',
  'created_at',
  'resolution_action',
  'resolution_reason',
  'resolved_by',
  'resolved_at',
  'return_payout_id',
];

/** One exception as a CSV row; `mask`: account numbers in what was reported and held masked (a viewer's export). */
const csvRow = (e: ExceptionRecord, mask: boolean) => [
  e.id,
  e.kind,
  e.state,
  e.source,
  e.sourceRef,
  e.merchantId,
  e.payoutId,
  e.walletId,
  e.amount === null ? null : formatPaise(e.amount),
  e.reason,
  JSON.stringify(mask ? maskAccountNumbers(e.reported) : e.reported),
  JSON.stringify(mask ? maskAccountNumbers(e.held) : e.held),
  e.createdAt.toISOString(),
  e.resolutionAction,
  e.resolutionReason,
  e.resolvedBy,
  e.resolvedAt?.toISOString() ?? null,
  e.returnPayoutId,
];

/** A CSV export holds at most this many exceptions (the filters narrow it). */
const CSV_LIMIT = 10_000;

const exceptionCursor = textCursor(
  (key) => EXCEPTION_ID_PATTERN.test(key),
  (e: ExceptionRecord) => e.id,
);

/**
 * The exceptions queue (docs/operator/exceptions.md): every report Payrail refused and every reconciliation result
 * other than matched, oldest first; resolving one (finance) runs its action through the same operation and guards
 * as doing it by hand, and is audited.
 */
export function adminExceptionRoutes(app: FastifyInstance, deps: { exceptions: ExceptionService }) {
  app.get<RouteRequest<'GET /admin/v1/exceptions'>>(
    '/admin/v1/exceptions',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'The exceptions queue, oldest first: filters state, kind, merchant_id, from/to (IST days); CSV',
        ...R['GET /admin/v1/exceptions'],
        response: { ...R['GET /admin/v1/exceptions'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const csv = q.format === 'csv';
      const page = await readPage(
        q,
        exceptionCursor,
        (limit, after) =>
          deps.exceptions.page({
            limit,
            after,
            state: q.state,
            kind: present(q.kind) ? q.kind : undefined,
            merchantId: present(q.merchant_id) ? q.merchant_id : undefined,
            ...createdRange(q),
          }),
        csv ? CSV_LIMIT : undefined,
      );
      if (csv) {
        // A bounded export: more rows than that are said in a header (narrow the filters, or page the JSON).
        if (page.has_more) reply.header('x-payrail-truncated', `first ${CSV_LIMIT} rows`);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="exceptions.csv"')
          .send(
            csvText([CSV_HEADER, ...page.data.map((e) => csvRow(e, !seesFullAccountNumbers(request.actor!.role)))]),
          );
      }
      return reply.send({ ...page, data: page.data.map(exceptionView) });
    },
  );

  app.get<RouteRequest<'GET /admin/v1/exceptions/:exception_id'>>(
    '/admin/v1/exceptions/:exception_id',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'One exception: what was reported, what Payrail holds, why, and what can be done',
        ...R['GET /admin/v1/exceptions/:exception_id'],
        response: { ...R['GET /admin/v1/exceptions/:exception_id'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const found = await deps.exceptions.get(request.params.exception_id);
      if (!found) throw AdminError.notFound('exception');
      return exceptionView(found);
    },
  );

  app.post<RouteRequest<'POST /admin/v1/exceptions/:exception_id/resolve'>>(
    '/admin/v1/exceptions/:exception_id/resolve',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'exception.resolve' },
      schema: {
        tags: ['admin'],
        summary:
          'Resolve an exception once: apply_as_reported, refund_in_full, assign_to_wallet (with wallet_id), return_to_sender or dismiss (by kind; see allowed_actions), with a reason',
        ...R['POST /admin/v1/exceptions/:exception_id/resolve'],
        response: {
          ...R['POST /admin/v1/exceptions/:exception_id/resolve'].response,
          ...adminErrorResponses,
          400: {
            ...adminError,
            description:
              'invalid_request: no reason, or a return to the sender whose report lacks the remitter’s account, IFSC or name (the message names it)',
          },
          403: adminError,
          409: {
            ...adminError,
            description:
              'already_resolved; action_not_allowed (the message lists the allowed ones); invalid_state (the operation refused: nothing changed)',
          },
        },
      },
    },
    async (request) => {
      const { exception_id } = request.params;
      const { action, wallet_id } = request.body;
      const reason = request.body.reason.trim();
      if (!reason) throw AdminError.invalid('reason must say why the exception is resolved this way');
      const outcome = await deps.exceptions.resolve(
        exception_id,
        action,
        reason,
        {
          // Named as closing a reconciliation item names them; payout histories say operator:<name>.
          by: request.actor?.name ?? 'operator:admin-token',
          actor: historyActor(request),
        },
        wallet_id,
      );
      request.auditNote =
        `${action} ${exception_id}: ${outcome.ok ? 'resolved' : `refused (${outcome.reason})`}: ${reason}`.slice(
          0,
          900,
        );
      if (outcome.ok) return exceptionView(outcome.exception);
      switch (outcome.reason) {
        case 'not_found':
          throw AdminError.notFound('exception');
        case 'already_resolved':
          throw new AdminError('already_resolved', `Exception ${exception_id} is resolved already`);
        case 'action_not_allowed':
          throw new AdminError(
            'action_not_allowed',
            `This exception allows ${outcome.allowed.join(', ') || 'no action'}, not ${action}`,
          );
        case 'invalid_state':
          throw new AdminError('invalid_state', outcome.message);
        case 'invalid_request':
          throw AdminError.invalid(outcome.message);
      }
    },
  );
}
