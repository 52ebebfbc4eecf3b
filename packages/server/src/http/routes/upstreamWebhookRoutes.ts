import { ROUTE_SCHEMAS as R } from '@payrail/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UPSTREAM_WEBHOOK_PATH } from '../../rails/upstream/UpstreamConnector.ts';
import type { UpstreamWebhooks } from '../../services/UpstreamWebhooks.ts';
import { AdminError } from '../AdminError.ts';
import { PSP_BODY_LIMIT_BYTES } from '../plugins/pspAuth.ts';
import { adminError } from './adminSchemas.ts';

/**
 * POST /psp/v1/upstream/webhook: the upstream provider's webhooks for the payouts Payrail sent through it, verified
 * by `X-Signature` or `X-Paywize-Signature` over the raw body. Registered only when PAYRAIL_UPSTREAM_WEBHOOK_SECRET
 * is set. Its own context, so that only this route keeps raw bodies.
 */
export function upstreamWebhookRoutes(app: FastifyInstance, deps: { upstreamWebhooks: UpstreamWebhooks }) {
  return app.register(async (scope) => {
    const raw = new WeakMap<FastifyRequest, Buffer>();
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: PSP_BODY_LIMIT_BYTES }, (request, body, done) => {
      raw.set(request, body as Buffer);
      done(null, undefined);
    });
    scope.post(
      UPSTREAM_WEBHOOK_PATH,
      {
        config: { errorStyle: 'admin' as const },
        bodyLimit: PSP_BODY_LIMIT_BYTES,
        schema: {
          tags: ['psp'],
          summary: "The upstream provider's webhook for payouts sent through it (PAYRAIL_UPSTREAM_WEBHOOK_SECRET)",
          description:
            'Verified by `X-Signature` or `X-Paywize-Signature` (`sha256=` + hex HMAC-SHA256 of the raw body, key = ' +
            'PAYRAIL_UPSTREAM_WEBHOOK_SECRET as UTF-8); `data` is decrypted with Payrail’s upstream credentials and ' +
            'joined on `sender_id` (the Payrail payout id). Applied like a poll: repeats and events out of order ' +
            'change nothing. An event about a payout of another connector, another `transaction_id` than the one ' +
            'recorded, or another amount is answered 200 `refused` with the `exception_id` it became, and moves nothing. An event that does not verify is 401 and changes nothing (the payout is polled instead).',
          ...R['POST /psp/v1/upstream/webhook'],
          response: {
            ...R['POST /psp/v1/upstream/webhook'].response,
            400: { ...adminError, description: 'invalid_request: not an event about a payout of ours' },
            401: { ...adminError, description: 'signature_invalid: neither header verifies' },
          },
        },
      },
      async (request) => {
        const result = await deps.upstreamWebhooks.receive(raw.get(request) ?? Buffer.alloc(0), request.headers);
        if (result.kind === 'unverified') {
          throw new AdminError('signature_invalid', 'Neither X-Signature nor X-Paywize-Signature verifies');
        }
        if (result.kind === 'invalid') throw AdminError.invalid(result.message);
        if (result.kind === 'refused') {
          return { result: 'refused', transactionId: result.payoutId, exception_id: result.exceptionId };
        }
        return { result: result.kind, ...(result.payoutId ? { transactionId: result.payoutId } : {}) };
      },
    );
  });
}
