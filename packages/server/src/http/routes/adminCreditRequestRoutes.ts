import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import { formatPaise } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type {
  CreditApprovalService,
  CreditRequest,
  DecisionOutcome,
  RequestForChecker,
} from '../../services/CreditApprovalService.ts';
import { AdminError } from '../AdminError.ts';
import { readPage, textCursor } from '../pageCursor.ts';
import { adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

export const creditRequestView = (r: CreditRequest) => ({
  credit_request_id: r.id,
  wallet_id: r.walletId,
  amount: formatPaise(r.amount),
  reference: r.reference,
  status: r.status,
  requested_by: r.requestedBy,
  decided_by: r.decidedBy,
  decided_at: r.decidedAt?.toISOString() ?? null,
  created_at: r.createdAt.toISOString(),
});

/** A listed request for the operator reading the list: its merchant, and whether they may approve it and why. */
const listedView = (r: RequestForChecker) => ({
  ...creditRequestView(r),
  merchant_id: r.merchantId,
  merchant_name: r.merchantName,
  approval: {
    allowed: r.refusal === null,
    refusal: r.refusal,
    requester_lineage: r.requesterLineage,
    your_lineage: r.checkerLineage,
  },
});

function answer(outcome: DecisionOutcome) {
  if (outcome.ok) {
    return {
      ...creditRequestView(outcome.request),
      ...(outcome.credit ? { balance: formatPaise(outcome.credit.balance) } : {}),
    };
  }
  switch (outcome.reason) {
    case 'not_found':
      throw AdminError.notFound('credit request');
    case 'not_pending':
      throw new AdminError('invalid_state', 'The credit request has already been decided');
    case 'same_operator':
      throw new AdminError('same_operator', 'A different operator must approve this credit (maker ≠ checker)');
    case 'lineage_conflict':
      throw new AdminError(
        'lineage_conflict',
        'A second, independent operator must approve this credit: you and the requester are linked by who ' +
          'created, promoted, re-enabled or set the password of whom',
      );
    case 'balance_overflow':
      throw new AdminError('balance_overflow', 'the balance would exceed the largest amount a wallet holds');
    case 'duplicate_reference':
      throw new AdminError('duplicate_reference', 'The reference of this request has already been credited');
    default:
      throw new AdminError('forbidden', 'This action needs the finance role');
  }
}

const creditRequestCursor = textCursor(
  (key) => /^CR[0-9A-HJKMNP-TV-Z]{26}$/.test(key),
  (r: RequestForChecker) => r.id,
);

/** Wallet credits waiting for a second operator (maker ≠ checker, docs/operator/console.md). */
export function adminCreditRequestRoutes(app: FastifyInstance, deps: { creditApproval: CreditApprovalService }) {
  app.get<RouteRequest<'GET /admin/v1/credit-requests'>>(
    '/admin/v1/credit-requests',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['console'],
        summary: 'Credit requests, newest first (status: pending, approved, rejected)',
        ...R['GET /admin/v1/credit-requests'],
        response: { ...R['GET /admin/v1/credit-requests'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await readPage(q, creditRequestCursor, (limit, before) =>
        deps.creditApproval.pageFor(request.actor!, { status: q.status, limit, before }),
      );
      return { ...page, data: page.data.map(listedView) };
    },
  );

  app.post<RouteRequest<'POST /admin/v1/credit-requests/:credit_request_id/approve'>>(
    '/admin/v1/credit-requests/:credit_request_id/approve',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'credit_request.approve' },
      schema: {
        tags: ['console'],
        summary:
          'Approve a pending credit: a different finance or admin operator, independent of the requester ' +
          '(403 lineage_conflict otherwise); the wallet is credited at once',
        ...R['POST /admin/v1/credit-requests/:credit_request_id/approve'],
        response: {
          ...R['POST /admin/v1/credit-requests/:credit_request_id/approve'].response,
          ...adminErrorResponses,
          403: adminErrorResponses[401],
        },
      },
    },
    async (request) => {
      const { credit_request_id } = request.params;
      const outcome = await deps.creditApproval.approve(credit_request_id, request.actor!);
      // The audit line names what was approved, not only the request's id.
      if (outcome.ok) {
        request.auditNote = `credited ${formatPaise(outcome.request.amount)} to ${outcome.request.walletId}, requested by ${outcome.request.requestedBy}`;
      } else if (outcome.reason === 'lineage_conflict') {
        request.auditNote = 'refused: not independent of the requester (approval lineage)';
      }
      return answer(outcome);
    },
  );

  app.post<RouteRequest<'POST /admin/v1/credit-requests/:credit_request_id/reject'>>(
    '/admin/v1/credit-requests/:credit_request_id/reject',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'credit_request.reject' },
      schema: {
        tags: ['console'],
        summary: 'Reject a pending credit (the maker may withdraw their own); nothing moves',
        ...R['POST /admin/v1/credit-requests/:credit_request_id/reject'],
        response: { ...R['POST /admin/v1/credit-requests/:credit_request_id/reject'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { credit_request_id } = request.params;
      return answer(await deps.creditApproval.reject(credit_request_id, request.actor!));
    },
  );
}
