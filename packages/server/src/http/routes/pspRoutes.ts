import { ROUTE_SCHEMAS as R } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { BankNotifications } from '../../services/BankNotifications.ts';
import type { CollectionNotifications } from '../../services/CollectionNotifications.ts';
import type { NotificationResult } from '../../services/NotificationResult.ts';
import { AdminError } from '../AdminError.ts';
import { PSP_BODY_LIMIT_BYTES, registerSignedBodies } from '../plugins/pspAuth.ts';
import { adminError } from './adminSchemas.ts';
import type { Clock } from '../../clock.ts';

const routeOptions = { config: { errorStyle: 'admin' as const }, bodyLimit: PSP_BODY_LIMIT_BYTES };
const security = [{ pspSignature: [] }];

/** The refusals of both notification routes (their 200 is protocol's). */
const responses = {
  400: { ...adminError, description: 'invalid_request: not a notification (nothing recorded)' },
  401: { ...adminError, description: 'signature_required, signature_invalid, signature_expired' },
  404: { ...adminError, description: 'not_found: no such transaction' },
  409: {
    ...adminError,
    description:
      'Refused and recorded once in the history, nothing of the notification kept: a transition the lifecycle refuses (invalid_transition, refused; invalid_state for a RETURNED payout that is neither SUCCESS nor returned), a conflicting UTR (utr_conflict), or a `reference` that already belongs to another collection or payout (reference_conflict)',
  },
  413: { ...adminError, description: 'body_too_large: over 64 KiB' },
  415: { ...adminError, description: 'unsupported_media_type: the body must be application/json' },
  422: { ...adminError, description: 'amount_mismatch: refused, recorded in the history, never credited' },
};

/** The answer of a notification route: 200 for applied or unchanged, an error JSON with its status otherwise. */
function answer(result: NotificationResult, idName: string, what: string) {
  switch (result.kind) {
    case 'applied':
    case 'unchanged':
      return { result: result.kind, [idName]: result.subjectId, status: result.status };
    case 'excepted':
      return {
        result: 'refused',
        [idName]: result.subjectId,
        status: result.status,
        exception_id: result.exceptionId,
        reason: result.message,
      };
    case 'invalid':
      throw AdminError.invalid(result.message);
    case 'not_found':
      throw AdminError.notFound(what);
    case 'refused':
      throw new AdminError(result.code, result.message);
  }
}

/**
 * The routes a PSP or bank calls with outcomes (docs/operator/live-mode.md), authenticated by an HMAC signature of the raw
 * body with PAYRAIL_PSP_NOTIFY_SECRET. Registered only when that secret is set (otherwise 404).
 */
export function pspRoutes(
  app: FastifyInstance,
  deps: {
    secret: string;
    collectionNotifications: CollectionNotifications;
    bankNotifications: BankNotifications;
    clock: Clock;
  },
) {
  return app.register(async (psp) => {
    registerSignedBodies(psp, deps.secret, deps.clock);

    psp.post(
      '/psp/v1/collections/notify',
      {
        ...routeOptions,
        schema: {
          tags: ['psp'],
          summary: 'A PSP reports the outcome of a collection (signed; idempotent)',
          description:
            'Header `Payrail-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(PAYRAIL_PSP_NOTIFY_SECRET, "<t>.<raw body>")>`, at most 300 s from our clock. A SUCCESS needs `utr` and `amount`; an amount that differs from the collection is refused and never credited.',
          security,
          ...R['POST /psp/v1/collections/notify'],
          response: { ...R['POST /psp/v1/collections/notify'].response, ...responses },
        },
      },
      async (request) => answer(await deps.collectionNotifications.report(request.body), 'txnId', 'collection'),
    );

    psp.post(
      '/psp/v1/payouts/notify',
      {
        ...routeOptions,
        schema: {
          tags: ['psp'],
          summary: 'A bank reports the outcome of a payout (signed; idempotent)',
          description:
            'Same signature as the collection notification. `transactionId` is the payout id, which the bank received as the idempotency key of the submission. A SUCCESS needs `utr`; a FAILED payout is refunded at once. RETURNED (with a `reason`, required) reports that the beneficiary bank sent back the money of a SUCCESS payout: it moves to REFUNDED, its amount comes back to the wallet once, it keeps its UTR; a FAILED about a SUCCESS payout is a return too. RETURNED again answers `unchanged`; RETURNED about a payout that is neither SUCCESS nor returned is refused (409 invalid_state).',
          security,
          ...R['POST /psp/v1/payouts/notify'],
          response: { ...R['POST /psp/v1/payouts/notify'].response, ...responses },
        },
      },
      async (request) => answer(await deps.bankNotifications.notify(request.body), 'transactionId', 'payout'),
    );
  });
}
