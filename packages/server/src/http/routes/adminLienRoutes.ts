import { formatPaise, parseRupees, ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { Lien, LienOutcome, LienService } from '../../services/LienService.ts';
import { AdminError } from '../AdminError.ts';
import { adminError, adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

/** A lien as the admin API answers it: rupees as text. */
export function lienView(l: Lien) {
  return {
    lien_id: l.id,
    wallet_id: l.walletId,
    amount: formatPaise(l.amount),
    remaining: formatPaise(l.remaining),
    released: formatPaise(l.released),
    enforced: formatPaise(l.enforced),
    reason: l.reason,
    state: l.state,
    expires_at: l.expiresAt?.toISOString() ?? null,
    placed_by: l.placedBy,
    approved_by: l.approvedBy,
    release_reason: l.releaseReason,
    released_by: l.releasedBy,
    pending_enforcement:
      l.enforcePending === null
        ? null
        : {
            amount: formatPaise(l.enforcePending),
            requested_by: l.enforceRequestedBy ?? '',
            reason: l.enforceReason ?? '',
          },
    created_at: l.createdAt.toISOString(),
    updated_at: l.updatedAt.toISOString(),
  };
}

/** The lien of an outcome, or the operator error its refusal is. */
function lienOf(outcome: LienOutcome): Lien {
  if (outcome.ok) return outcome.lien;
  switch (outcome.reason) {
    case 'not_found':
      throw AdminError.notFound('lien or wallet');
    case 'insufficient_balance':
      throw new AdminError(
        'insufficient_balance',
        'The wallet cannot cover this amount: its balance minus its active liens is less',
      );
    case 'invalid_state':
      throw new AdminError('invalid_state', 'The lien is not in a state that allows this (nothing changed)');
    case 'exceeds_lien':
      throw AdminError.invalid('amount is more than the lien still holds');
    case 'expired_already':
      throw AdminError.invalid('expires_at must be in the future');
    case 'same_operator':
      throw new AdminError('same_operator', 'A different operator must approve this (maker ≠ checker)');
    case 'lineage_conflict':
      throw new AdminError(
        'lineage_conflict',
        'A second, independent operator must approve this: you and the requester are linked by who created, ' +
          'promoted, re-enabled or set the password of whom',
      );
    case 'forbidden':
      throw new AdminError('forbidden', 'Approving needs the finance or admin role');
  }
}

const amountOf = (raw: string | number | undefined): bigint | undefined => {
  if (raw === undefined) return undefined;
  const amount = parseRupees(raw);
  if (amount === null || amount <= 0n) throw AdminError.invalid('amount must be a positive amount like "1000.00"');
  return amount;
};

const errors = { ...adminErrorResponses, 403: adminError, 422: adminError };

/**
 * Liens (docs/operator/liens.md): finance places, releases and enforces them, audited; a console operator above
 * PAYRAIL_CREDIT_APPROVAL_ABOVE gets 202 and a second operator approves; the admin token acts at once.
 */
export function adminLienRoutes(app: FastifyInstance, deps: { liens: LienService }) {
  app.post<RouteRequest<'POST /admin/v1/wallets/:wallet_id/liens'>>(
    '/admin/v1/wallets/:wallet_id/liens',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'wallet.lien' },
      schema: {
        tags: ['admin'],
        summary:
          'Place a lien: what it holds cannot be paid out. 201 active; 202 pending when a console operator asks ' +
          'above PAYRAIL_CREDIT_APPROVAL_ABOVE (a second operator approves); 422 insufficient_balance beyond ' +
          'balance minus active liens',
        ...R['POST /admin/v1/wallets/:wallet_id/liens'],
        response: { ...R['POST /admin/v1/wallets/:wallet_id/liens'].response, ...errors },
      },
    },
    async (request, reply) => {
      const amount = amountOf(request.body.amount) as bigint;
      const expiresAt = request.body.expires_at === undefined ? null : new Date(request.body.expires_at);
      if (expiresAt !== null && Number.isNaN(expiresAt.getTime())) throw AdminError.invalid('expires_at is not a time');
      const outcome = await deps.liens.place(
        request.actor!,
        request.params.wallet_id,
        amount,
        request.body.reason,
        expiresAt,
      );
      const lien = lienOf(outcome);
      request.auditNote = `lien ${lien.id} of ${formatPaise(amount)} on ${lien.walletId}${outcome.ok && outcome.pending ? ', waits for approval' : ''}: ${lien.reason}`;
      return reply.code(outcome.ok && outcome.pending ? 202 : 201).send(lienView(lien));
    },
  );

  app.get<RouteRequest<'GET /admin/v1/wallets/:wallet_id/liens'>>(
    '/admin/v1/wallets/:wallet_id/liens',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'The wallet’s liens, newest first, and what they hold now',
        ...R['GET /admin/v1/wallets/:wallet_id/liens'],
        response: { ...R['GET /admin/v1/wallets/:wallet_id/liens'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { wallet_id } = request.params;
      const liens = await deps.liens.list(wallet_id);
      if (!liens) throw AdminError.notFound('wallet');
      return { wallet_id, on_lien: formatPaise(await deps.liens.onLien(wallet_id)), liens: liens.map(lienView) };
    },
  );

  app.get<RouteRequest<'GET /admin/v1/liens/:lien_id'>>(
    '/admin/v1/liens/:lien_id',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'One lien',
        ...R['GET /admin/v1/liens/:lien_id'],
        response: { ...R['GET /admin/v1/liens/:lien_id'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const lien = await deps.liens.get(request.params.lien_id);
      if (!lien) throw AdminError.notFound('lien');
      return lienView(lien);
    },
  );

  app.post<RouteRequest<'POST /admin/v1/liens/:lien_id/release'>>(
    '/admin/v1/liens/:lien_id/release',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'lien.release' },
      schema: {
        tags: ['admin'],
        summary:
          'Release a lien in part (`amount`) or in full (no amount); the reason is kept on the lien ' +
          '(`release_reason`, the latest release) and in the audit log',
        ...R['POST /admin/v1/liens/:lien_id/release'],
        response: { ...R['POST /admin/v1/liens/:lien_id/release'].response, ...errors },
      },
    },
    async (request) => {
      const amount = amountOf(request.body.amount);
      const lien = lienOf(
        await deps.liens.release(request.actor!, request.params.lien_id, amount, request.body.reason),
      );
      request.auditNote = `released ${amount === undefined ? 'all' : formatPaise(amount)} of ${lien.id}: ${request.body.reason}`;
      return lienView(lien);
    },
  );

  app.post<RouteRequest<'POST /admin/v1/liens/:lien_id/enforce'>>(
    '/admin/v1/liens/:lien_id/enforce',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'lien.enforce' },
      schema: {
        tags: ['admin'],
        summary:
          'Enforce a lien: the amount (all it holds without one) moves from the wallet to PW_RECOVERY as ' +
          '`lien_enforced` entries; 202 when a console operator asks above PAYRAIL_CREDIT_APPROVAL_ABOVE',
        ...R['POST /admin/v1/liens/:lien_id/enforce'],
        response: { ...R['POST /admin/v1/liens/:lien_id/enforce'].response, ...errors },
      },
    },
    async (request, reply) => {
      const amount = amountOf(request.body.amount);
      const outcome = await deps.liens.enforce(request.actor!, request.params.lien_id, amount, request.body.reason);
      const lien = lienOf(outcome);
      const pending = outcome.ok && outcome.pending;
      request.auditNote = `${pending ? 'asked to enforce' : 'enforced'} ${amount === undefined ? 'all' : formatPaise(amount)} of ${lien.id}: ${request.body.reason}`;
      return reply.code(pending ? 202 : 200).send(lienView(lien));
    },
  );

  app.post<RouteRequest<'POST /admin/v1/liens/:lien_id/approve'>>(
    '/admin/v1/liens/:lien_id/approve',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'lien.approve' },
      schema: {
        tags: ['admin'],
        summary:
          'Approve what waits on a lien (its placement or its enforcement): a different finance or admin ' +
          'operator, independent of the requester',
        ...R['POST /admin/v1/liens/:lien_id/approve'],
        response: { ...R['POST /admin/v1/liens/:lien_id/approve'].response, ...errors },
      },
    },
    async (request) => {
      const lien = lienOf(await deps.liens.approve(request.params.lien_id, request.actor!));
      request.auditNote = `approved ${lien.id} (${lien.state})`;
      return lienView(lien);
    },
  );

  app.post<RouteRequest<'POST /admin/v1/liens/:lien_id/reject'>>(
    '/admin/v1/liens/:lien_id/reject',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'lien.reject' },
      schema: {
        tags: ['admin'],
        summary: 'Turn down what waits on a lien: a pending lien is rejected, a pending enforcement dropped',
        ...R['POST /admin/v1/liens/:lien_id/reject'],
        response: { ...R['POST /admin/v1/liens/:lien_id/reject'].response, ...errors },
      },
    },
    async (request) => {
      const lien = lienOf(await deps.liens.reject(request.params.lien_id, request.actor!));
      request.auditNote = `turned down what waited on ${lien.id}`;
      return lienView(lien);
    },
  );
}
