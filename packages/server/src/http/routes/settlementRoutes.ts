import {
  merchantErrorResponses,
  parseRupees,
  ROUTE_SCHEMAS as R,
  SettlementCodes,
  withMessage,
  type RouteRequest,
} from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { dateOf, type Clock } from '../../clock.ts';
import { IST_DAY_MS, istDay, istDayEnd, istDayStart } from '../../domain/istPeriod.ts';
import { RequestRejected } from '../../domain/RequestRejected.ts';
import { toSettlementWire } from '../../domain/settlement.ts';
import type { SettlementService } from '../../services/SettlementService.ts';
import type { Session, TokenService } from '../../services/TokenService.ts';
import { requireMerchant } from '../plugins/merchantAuth.ts';
import { present } from '../queryParams.ts';
import { sendEnvelope } from '../sendEnvelope.ts';
import type { StatusRateLimit } from '../StatusRateLimit.ts';
import { bearerSecurity } from './merchantSchemas.ts';
import { decryptPayload } from './payoutRoutes.ts';

interface Deps {
  tokens: TokenService;
  settlements: SettlementService;
  statusRateLimit: StatusRateLimit;
  clock: Clock;
}

/** A history covers at most this many IST days (a bounded answer); 30 days when `from` is absent. */
const MAX_HISTORY_DAYS = 92;
const DEFAULT_HISTORY_DAYS = 30;
/** At most this many settlements in one history answer (newest first). */
const MAX_HISTORY_ITEMS = 1000;

/**
 * The merchant's settlements (docs/merchant/settlements.md): POST /settlement/v1/initiate, GET /settlement/v1/status,
 * GET /settlement/v1/history. Encrypted and authenticated like the payout routes, with the payout envelope; codes of
 * their own (SettlementCodes).
 */
export function settlementRoutes(app: FastifyInstance, deps: Deps) {
  const auth = requireMerchant(deps.tokens, SettlementCodes.unauthorized);
  const config = { errorStyle: 'payout' as const };

  app.post<RouteRequest<'POST /settlement/v1/initiate'>>(
    '/settlement/v1/initiate',
    {
      onRequest: auth,
      config: { ...config, invalidBody: SettlementCodes.undecryptable },
      schema: {
        tags: ['settlements'],
        summary: 'Settle collections to the merchant’s settlement account now (all that is settleable, or `amount`)',
        description:
          'Plaintext: `SettlementInitiateRequest`. Success `data`: `Settlement` (state INITIATED, with the collections it covers).',
        security: bearerSecurity,
        ...R['POST /settlement/v1/initiate'],
        response: {
          ...R['POST /settlement/v1/initiate'].response,
          ...merchantErrorResponses('POST /settlement/v1/initiate'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const plain = decryptPayload(request, SettlementCodes.undecryptable);
      const walletId = plain.wallet_id;
      if (walletId === undefined || walletId === null || walletId === '') {
        throw new RequestRejected(SettlementCodes.walletIdMissing);
      }
      if (typeof walletId !== 'string') throw new RequestRejected(SettlementCodes.walletNotFound);
      let amount: bigint | null = null;
      if (plain.amount !== undefined && plain.amount !== null) {
        amount = parseRupees(plain.amount);
        if (amount === null) throw new RequestRejected(SettlementCodes.invalidAmount);
      }
      const outcome = await deps.settlements.initiate(session.merchant.id, walletId, amount);
      if (!outcome.ok) {
        throw new RequestRejected(
          outcome.reason === 'wallet_not_found'
            ? SettlementCodes.walletNotFound
            : outcome.reason === 'no_account'
              ? SettlementCodes.noSettlementAccount
              : SettlementCodes.nothingToSettle,
        );
      }
      return sendEnvelope(
        request,
        reply,
        SettlementCodes.initiated,
        toSettlementWire(outcome.settlement, outcome.items),
      );
    },
  );

  app.get<RouteRequest<'GET /settlement/v1/status'>>(
    '/settlement/v1/status',
    {
      onRequest: auth,
      preHandler: deps.statusRateLimit.hook('settlement-status'),
      config,
      schema: {
        tags: ['settlements'],
        summary: 'One settlement of the caller, with the collections it covers',
        security: bearerSecurity,
        ...R['GET /settlement/v1/status'],
        response: {
          ...R['GET /settlement/v1/status'].response,
          ...merchantErrorResponses('GET /settlement/v1/status'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const { settlement_id } = request.query;
      if (!present(settlement_id)) throw new RequestRejected(SettlementCodes.settlementIdMissing);
      const found = await deps.settlements.get(settlement_id);
      if (!found) throw new RequestRejected(SettlementCodes.notFound);
      // The provider's collection status answers another merchant's transaction with 4107; settlements do the same.
      if (found.settlement.merchantId !== session.merchant.id) throw new RequestRejected(SettlementCodes.otherMerchant);
      return sendEnvelope(request, reply, SettlementCodes.fetched, toSettlementWire(found.settlement, found.items));
    },
  );

  app.get<RouteRequest<'GET /settlement/v1/history'>>(
    '/settlement/v1/history',
    {
      onRequest: auth,
      config,
      schema: {
        tags: ['settlements'],
        summary: `The caller’s settlements created from \`from\` to \`to\` (IST days, inclusive; at most ${MAX_HISTORY_DAYS} days), newest first`,
        security: bearerSecurity,
        ...R['GET /settlement/v1/history'],
        response: {
          ...R['GET /settlement/v1/history'].response,
          ...merchantErrorResponses('GET /settlement/v1/history'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const { from, to } = historyRange(request.query, dateOf(deps.clock));
      const settlements = await deps.settlements.page({
        merchantId: session.merchant.id,
        from,
        to,
        limit: MAX_HISTORY_ITEMS,
      });
      const items = await deps.settlements.itemsOf(settlements.map((s) => s.id));
      return sendEnvelope(request, reply, SettlementCodes.historyFetched, {
        settlements: settlements.map((s) => toSettlementWire(s, items.get(s.id) ?? [])),
      });
    },
  );
}

const invalid = (message: string) => new RequestRejected(withMessage(SettlementCodes.invalidField, message));

/** `from`/`to` as IST days, both inclusive, as instants [from, to); 4017 naming the parameter otherwise. */
function historyRange(query: { from?: string; to?: string }, now: Date): { from: Date; to: Date } {
  const to = present(query.to) ? istDayEnd(query.to) : istDayEnd(istDay(now));
  if (!to) throw invalid('Invalid to: give an IST date YYYY-MM-DD');
  const from = present(query.from)
    ? istDayStart(query.from)
    : new Date(to.getTime() - DEFAULT_HISTORY_DAYS * IST_DAY_MS);
  if (!from) throw invalid('Invalid from: give an IST date YYYY-MM-DD');
  if (from.getTime() >= to.getTime()) throw invalid('Invalid range: from must not be after to');
  if (to.getTime() - from.getTime() > MAX_HISTORY_DAYS * IST_DAY_MS) {
    throw invalid(`Invalid range: at most ${MAX_HISTORY_DAYS} days`);
  }
  return { from, to };
}
