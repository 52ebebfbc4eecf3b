import { Common, PayoutCodes, withMessage } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { toVerificationWire } from '../../domain/BeneficiaryVerification.ts';
import { RequestRejected } from '../../domain/RequestRejected.ts';
import type { BeneficiaryVerificationService } from '../../services/BeneficiaryVerificationService.ts';
import { decodeItemCursor, type BulkPayoutService } from '../../services/BulkPayoutService.ts';
import type { Session, TokenService } from '../../services/TokenService.ts';
import { sendEnvelope } from '../plugins/errorHandler.ts';
import { requireMerchant } from '../plugins/merchantAuth.ts';
import { present } from '../queryParams.ts';
import type { StatusRateLimit } from '../StatusRateLimit.ts';
import { bearerSecurity, encryptedBody, payoutEnvelope } from './merchantSchemas.ts';
import { decryptPayload } from './payoutRoutes.ts';

interface Deps {
  tokens: TokenService;
  bulkPayouts: BulkPayoutService;
  verification: BeneficiaryVerificationService;
  statusRateLimit: StatusRateLimit;
}

/** A bulk request carries up to 1,000 items: its own body limit (docs/bulk-and-verification.md). */
export const BULK_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

/** POST /payout/v1/bulk, GET /payout/v1/bulk/status, POST /payout/v1/beneficiary/verify (docs/bulk-and-verification.md, §11). */
export function bulkRoutes(app: FastifyInstance, deps: Deps) {
  const auth = requireMerchant(deps.tokens, PayoutCodes.unauthorized);
  const config = { errorStyle: 'payout' as const };

  app.post(
    '/payout/v1/bulk',
    {
      onRequest: auth,
      bodyLimit: BULK_BODY_LIMIT_BYTES,
      config: {
        ...config,
        invalidBody: PayoutCodes.undecryptable,
        bodyTooLarge: withMessage(Common.bodyTooLarge, 'Request body exceeds 2 MiB'),
      },
      schema: {
        tags: ['payouts'],
        summary: 'Initiate up to 1,000 payouts in one request (or check them with dry_run)',
        description:
          'Plaintext: `BulkPayoutRequest`. Each item is checked as a single initiation would be, in order, counting the earlier accepted items. Success `data`: `BulkPayoutResult` (also the `data` of 4018 and of 4009).',
        security: bearerSecurity,
        body: encryptedBody,
        response: {
          200: payoutEnvelope('2000: processed (or checked, with dry_run); data = BulkPayoutResult'),
          400: payoutEnvelope(
            '4014 (undecryptable), 4017 (batch_id, dry_run, atomic, callback_url), 4019 (0 or over 1,000 items)',
          ),
          401: payoutEnvelope('4001: invalid or expired token'),
          409: payoutEnvelope('4009: duplicate batch_id; data = the existing batch as BulkPayoutResult'),
          413: payoutEnvelope('4000: body over 2 MiB'),
          422: payoutEnvelope('4018: atomic batch with a refused item, nothing recorded; data = BulkPayoutResult'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const plain = decryptPayload(request, PayoutCodes.undecryptable);
      const answer = await deps.bulkPayouts.submit(session.merchant, session.scheme, plain);
      return sendEnvelope(request, reply, answer.def, answer.data);
    },
  );

  app.get(
    '/payout/v1/bulk/status',
    {
      onRequest: auth,
      preHandler: deps.statusRateLimit.hook('payout-bulk-status'),
      config,
      schema: {
        tags: ['payouts'],
        summary: 'A batch: its summary by status and its items (200 per page)',
        security: bearerSecurity,
        querystring: {
          type: 'object',
          properties: { batch_id: { type: 'string' }, cursor: { type: 'string' } },
        },
        response: {
          200: payoutEnvelope('2000; data = BulkPayoutStatus'),
          400: payoutEnvelope('4017: batch_id missing, or a cursor this API did not return'),
          401: payoutEnvelope('4001'),
          404: payoutEnvelope('4103: no such batch (or another merchant’s)'),
          429: payoutEnvelope('4290: rate limit exceeded'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const { batch_id, cursor } = request.query as { batch_id?: string; cursor?: string };
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

  app.post(
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
        body: encryptedBody,
        response: {
          200: payoutEnvelope('2000: verified (the account may still be INVALID); data = BeneficiaryVerification'),
          400: payoutEnvelope('4003 name, 4007 IFSC, 4008 account number, 4014 undecryptable'),
          401: payoutEnvelope('4001'),
          422: payoutEnvelope('4013: verification not available (the bank connector cannot verify)'),
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
