import {
  DecryptError,
  decryptJsonObject,
  encryptedBody,
  merchantErrorResponses,
  PayoutCodes,
  ROUTE_SCHEMAS as R,
  type FromSchema,
  type RouteRequest,
} from '@payrail/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { toPayoutWire } from '../../domain/Payout.ts';
import { RequestRejected } from '../../domain/RequestRejected.ts';
import type { PayoutService } from '../../services/PayoutService.ts';
import type { Session, TokenService } from '../../services/TokenService.ts';
import { sendEnvelope } from '../sendEnvelope.ts';
import { present } from '../queryParams.ts';
import { requireMerchant } from '../plugins/merchantAuth.ts';
import type { StatusRateLimit } from '../StatusRateLimit.ts';
import { bearerSecurity } from './merchantSchemas.ts';

interface Deps {
  tokens: TokenService;
  payouts: PayoutService;
  statusRateLimit: StatusRateLimit;
}

/**
 * The decrypted request of an encrypted POST; 4014 when it is not a JSON object under the session's keys. Its
 * routes' body schema is `encryptedBody`, which validation has checked by now (an object; `payload` may be absent).
 */
export function decryptPayload(
  request: FastifyRequest<{ Body: FromSchema<typeof encryptedBody> }>,
  undecryptable: RequestRejected['def'],
) {
  const session = request.session as Session;
  try {
    return decryptJsonObject(request.body.payload, session.scheme, session.merchant);
  } catch (err) {
    if (err instanceof DecryptError) throw new RequestRejected(undecryptable);
    throw err;
  }
}

/** POST /payout/v1/initiate, GET /payout/v1/status, GET /payout/v1/balance (snake_case envelope). */
export function payoutRoutes(app: FastifyInstance, deps: Deps) {
  const auth = requireMerchant(deps.tokens, PayoutCodes.unauthorized);
  const config = { errorStyle: 'payout' as const };

  app.post<RouteRequest<'POST /payout/v1/initiate'>>(
    '/payout/v1/initiate',
    {
      onRequest: auth,
      config: { ...config, invalidBody: PayoutCodes.undecryptable },
      schema: {
        tags: ['payouts'],
        summary: 'Initiate a payout from a wallet to a bank account',
        description:
          'Plaintext: `PayoutInitiateRequest` (nested or flat shape). Success `data`: `PayoutTransaction` with status INITIATED.',
        security: bearerSecurity,
        ...R['POST /payout/v1/initiate'],
        response: { ...R['POST /payout/v1/initiate'].response, ...merchantErrorResponses('POST /payout/v1/initiate') },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const plain = decryptPayload(request, PayoutCodes.undecryptable);
      const payout = await deps.payouts.initiate(session.merchant, session.scheme, plain);
      return sendEnvelope(request, reply, PayoutCodes.initiated, toPayoutWire(payout));
    },
  );

  app.get<RouteRequest<'GET /payout/v1/status'>>(
    '/payout/v1/status',
    {
      onRequest: auth,
      preHandler: deps.statusRateLimit.hook('payout-status'),
      config,
      schema: {
        tags: ['payouts'],
        summary: 'Status of a payout by transaction_id or sender_id (exactly one)',
        security: bearerSecurity,
        ...R['GET /payout/v1/status'],
        response: { ...R['GET /payout/v1/status'].response, ...merchantErrorResponses('GET /payout/v1/status') },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const { transaction_id, sender_id } = request.query;
      if (!present(transaction_id) && !present(sender_id)) throw new RequestRejected(PayoutCodes.neitherIdentifier);
      if (present(transaction_id) && present(sender_id)) throw new RequestRejected(PayoutCodes.bothIdentifiers);
      const payout = await deps.payouts.find(
        session.merchant.id,
        present(transaction_id) ? { transactionId: transaction_id } : { senderId: sender_id },
      );
      if (!payout) throw new RequestRejected(PayoutCodes.transactionNotFound);
      return sendEnvelope(request, reply, PayoutCodes.fetched, toPayoutWire(payout));
    },
  );

  app.get<RouteRequest<'GET /payout/v1/balance'>>(
    '/payout/v1/balance',
    {
      onRequest: auth,
      config,
      schema: {
        tags: ['payouts'],
        summary: 'Balance of one of the caller’s wallets',
        security: bearerSecurity,
        ...R['GET /payout/v1/balance'],
        response: { ...R['GET /payout/v1/balance'].response, ...merchantErrorResponses('GET /payout/v1/balance') },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const { wallet_id } = request.query;
      if (!present(wallet_id)) throw new RequestRejected(PayoutCodes.walletIdMissing);
      const balance = await deps.payouts.balance(session.merchant.id, wallet_id);
      if (!balance) throw new RequestRejected(PayoutCodes.walletNotFound);
      return sendEnvelope(request, reply, PayoutCodes.balanceFetched, balance);
    },
  );
}
