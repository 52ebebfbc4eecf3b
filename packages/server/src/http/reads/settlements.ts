import { formatPaise, type FromSchema, type settlementFormatQuery } from '@payrail/protocol';
import type { FastifyReply } from 'fastify';
import { toSettlementWire, type Settlement } from '../../domain/settlement.ts';
import { inScope, scopedQuery } from '../../services/MerchantScope.ts';
import type { SettlementService } from '../../services/SettlementService.ts';
import { AdminError } from '../AdminError.ts';
import { createdRange } from '../consoleListing.ts';
import { csvText } from '../csv.ts';
import { readPage, textCursor } from '../pageCursor.ts';
import { merchantScopeOf, type ReadScope } from './readScope.ts';

const settlementCursor = textCursor(
  (key) => /^ST[0-9A-HJKMNP-TV-Z]{26}$/.test(key),
  (s: Settlement) => s.id,
);

/** The settlement report's columns: one line per collection it covers. */
const REPORT_HEADER = ['settlement_id', 'collection_id', 'amount', 'fee', 'gst', 'net'];

/**
 * The settlement reads of the admin API and the merchant console: the same answers, each in its scope (a merchant's
 * query can only narrow its own settlements; another merchant's settlement is not there).
 */
export function readSettlements(deps: { settlements: SettlementService }) {
  return {
    /** A page of settlements, newest first, by merchant (the operator's filter), wallet and IST days. */
    async list(
      q: { merchant_id?: string; wallet_id?: string; from?: string; to?: string; limit?: string; cursor?: string },
      scope: ReadScope,
    ) {
      const range = createdRange(q);
      const page = await readPage(q, settlementCursor, (limit, before) =>
        deps.settlements.page(
          scopedQuery(
            {
              merchantId: q.merchant_id,
              walletId: q.wallet_id,
              from: range.createdFrom,
              to: range.createdBefore,
              before,
              limit,
            },
            merchantScopeOf(scope),
          ),
        ),
      );
      const items = await deps.settlements.itemsOf(page.data.map((s) => s.id));
      return { ...page, data: page.data.map((s) => toSettlementWire(s, items.get(s.id) ?? [])) };
    },

    /** One settlement with its collections, or its report (`format=csv`); 404 for none or another merchant's. */
    async answer(reply: FastifyReply, id: string, q: FromSchema<typeof settlementFormatQuery>, scope: ReadScope) {
      const found = await deps.settlements.get(id);
      if (!found || !inScope(merchantScopeOf(scope), found.settlement.merchantId)) {
        throw AdminError.notFound('settlement');
      }
      const { settlement, items } = found;
      if (q.format === 'csv') {
        const rows = items.map((i) => [
          settlement.id,
          i.collectionId,
          formatPaise(i.amount),
          formatPaise(i.fee),
          formatPaise(i.tax),
          formatPaise(i.net),
        ]);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="settlement-${settlement.id}.csv"`)
          .send(csvText([REPORT_HEADER, ...rows]));
      }
      return reply.send(toSettlementWire(settlement, items));
    },
  };
}
