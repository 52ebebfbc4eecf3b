import {
  BULK_BODY_TOO_LARGE,
  merchantErrorResponses,
  PayoutCodes,
  ROUTE_SCHEMAS as R,
  withMessage,
  type RouteRequest,
} from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { toVerificationWire } from '../../domain/BeneficiaryVerification.ts';
import { RequestRejected } from '../../domain/RequestRejected.ts';
import type { BeneficiaryVerificationService } from '../../services/BeneficiaryVerificationService.ts';
import { decodeItemCursor, type BulkPayoutService } from '../../services/BulkPayoutService.ts';
import type { Session, TokenService } from '../../services/TokenService.ts';
import { sendEnvelope } from '../sendEnvelope.ts';
import { requireMerchant } from '../plugins/merchantAuth.ts';
import { present } from '../queryParams.ts';
import type { StatusRateLimit } from '../StatusRateLimit.ts';
import { bearerSecurity } from './merchantSchemas.ts';
import { decryptPayload } from './payoutRoutes.ts';

interface Deps {
  tokens: TokenService;
  bulkPayouts: BulkPayoutService;
  verification: BeneficiaryVerificationService;
  statusRateLimit: StatusRateLimit;
}

/** A bulk request carries up to 1,000 items: its own body limit (docs/merchant/bulk-and-verification.md). */
export const BULK_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

/** POST /payout/v1/bulk, GET /payout/v1/bulk/status, POST /payout/v1/beneficiary/verify (docs/merchant/bulk-and-verification.md). */
export function bulkRoutes(app: FastifyInstance, deps: Deps) {
  const auth = requireMerchant(deps.tokens, PayoutCodes.unauthorized);
  const config = { errorStyle: 'payout' as const };

  app.post<RouteRequest<'POST /payout/v1/bulk'>>(
    '/payout/v1/bulk',
    {
      onRequest: auth,
      bodyLimit: BULK_BODY_LIMIT_BYTES,
      config: {
        ...config,
        invalidBody: PayoutCodes.undecryptable,
        bodyTooLarge: BULK_BODY_TOO_LARGE,
      },
      schema: {
        tags: ['payouts'],
        summary: 'Initiate up to 1,000 payouts in one request (or check them with dry_run)',
        description:
          'Plaintext: `BulkPayoutRequest`. Each item is checked as a single initiation would be, in order, counting the earlier accepted items. Success `data`: `BulkPayoutResult` (also the `data` of 4018 and of 4009).',
        security: bearerSecurity,
        ...R['POST /payout/v1/bulk'],
        response: { ...R['POST /payout/v1/bulk'].response, ...merchantErrorResponses('POST /payout/v1/bulk') },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const plain = decryptPayload(request, PayoutCodes.undecryptable);
      const answer = await deps.bulkPayouts.submit(session.merchant, session.scheme, plain);
      return sendEnvelope(request, reply, answer.def, answer.data);
    },
  );

  app.get<RouteRequest<'GET /payout/v1/bulk/status'>>(
    '/payout/v1/bulk/status',
    {
      onRequest: auth,
      preHandler: deps.statusRateLimit.hook('payout-bulk-status'),
      config,
      schema: {
        tags: ['payouts'],
        summary: 'A batch: its summary by status and its items (200 per page)',
        security: bearerSecurity,
        ...R['GET /payout/v1/bulk/status'],
        response: {
          ...R['GET /payout/v1/bulk/status'].response,
          ...merchantErrorResponses('GET /payout/v1/bulk/status'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const { batch_id, cursor } = request.query;
      if (!present(batch_id)) {
        throw new RequestRejected(withMessage(PayoutCodes.invalidField, 'batch_id is required'));
      }
      const after = decodeItemCursor(cursor);
      if (after === null) throw new RequestRejected(withMessage(PayoutCodes.invalidField, 'Invalid cursor'));
      const status = await deps.bulkPayouts.status(session.merchant.id, batch_id, after);
      if (!status) throw new RequestRejected(PayoutCodes.batchNotFound);
      return sendEnvelope(request, reply, PayoutCodes.batchFetched, status);
    },
  );

  app.post<RouteRequest<'POST /payout/v1/beneficiary/verify'>>(
    '/payout/v1/beneficiary/verify',
    {
      onRequest: auth,
      config: { ...config, invalidBody: PayoutCodes.undecryptable },
      schema: {
        tags: ['payouts'],
        summary: 'Verify a beneficiary account and match the holder’s name',
        description:
          'Plaintext: `BeneficiaryVerifyRequest`. Success `data`: `BeneficiaryVerification` (account status, name at the bank, name match score and band).',
        security: bearerSecurity,
        ...R['POST /payout/v1/beneficiary/verify'],
        response: {
          ...R['POST /payout/v1/beneficiary/verify'].response,
          ...merchantErrorResponses('POST /payout/v1/beneficiary/verify'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const plain = decryptPayload(request, PayoutCodes.undecryptable);
      const verification = await deps.verification.verify(session.merchant, plain);
      return sendEnvelope(request, reply, PayoutCodes.beneficiaryVerified, toVerificationWire(verification));
    },
  );
}
