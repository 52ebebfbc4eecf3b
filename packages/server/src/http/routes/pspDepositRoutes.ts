import { ROUTE_SCHEMAS as R } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.ts';
import { parseDepositReport } from '../../domain/deposit.ts';
import type { DepositService } from '../../services/DepositService.ts';
import { AdminError } from '../AdminError.ts';
import { PSP_BODY_LIMIT_BYTES, registerSignedBodies } from '../plugins/pspAuth.ts';
import { adminError } from './adminSchemas.ts';

/**
 * The collection bank's virtual-account webhook (docs/merchant/funding-a-wallet.md), signed like the other PSP
 * routes with PAYRAIL_PSP_NOTIFY_SECRET; registered only when it is set.
 */
export function pspDepositRoutes(
  app: FastifyInstance,
  deps: { secret: string; deposits: DepositService; clock: Clock },
) {
  return app.register(async (psp) => {
    registerSignedBodies(psp, deps.secret, deps.clock);
    psp.post(
      '/psp/v1/deposits/notify',
      {
        config: { errorStyle: 'admin' as const },
        bodyLimit: PSP_BODY_LIMIT_BYTES,
        schema: {
          tags: ['psp'],
          summary: 'The collection bank reports a credit to a virtual account (signed; once per UTR)',
          description:
            "Same signature as the payout and collection notifications. 200 `credited`, `unchanged` (this UTR was credited before: nothing changed) or `refused` (an unknown virtual account, a failed check digit, a remitter not on the merchant's allowed list): recorded once as the exception `exception_id`, nothing credited.",
          security: [{ pspSignature: [] }],
          ...R['POST /psp/v1/deposits/notify'],
          response: {
            ...R['POST /psp/v1/deposits/notify'].response,
            400: { ...adminError, description: 'invalid_request: not a deposit report (nothing recorded)' },
            401: { ...adminError, description: 'signature_required, signature_invalid, signature_expired' },
            413: { ...adminError, description: 'body_too_large: over 64 KiB' },
            415: { ...adminError, description: 'unsupported_media_type: the body must be application/json' },
          },
        },
      },
      async (request) => {
        const parsed = parseDepositReport(request.body as Record<string, unknown>, { creditedAt: true });
        if (!parsed.ok) throw AdminError.invalid(parsed.message);
        const outcome = await deps.deposits.receive(parsed.report, 'psp_notify');
        if (outcome.kind === 'excepted') {
          return { result: 'refused', exception_id: outcome.exception.id, reason: outcome.exception.reason };
        }
        return {
          result: outcome.duplicate ? 'unchanged' : 'credited',
          deposit_id: outcome.deposit.id,
          wallet_id: outcome.deposit.walletId,
        };
      },
    );
  });
}
