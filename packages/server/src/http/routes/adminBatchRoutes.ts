import { ROUTE_SCHEMAS as R } from '@payrail/protocol';
import { formatPaise } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { PayoutBatch } from '../../domain/PayoutBatch.ts';
import type { BulkPayoutService } from '../../services/BulkPayoutService.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import { AdminError } from '../AdminError.ts';
import { decodeCursor, pageLimit, pageOf } from '../pageCursor.ts';
import { createdRange, withMerchantNames } from '../consoleListing.ts';
import { adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

export const batchView = (b: PayoutBatch) => ({
  merchant_id: b.merchantId,
  batch_id: b.batchId,
  atomic: b.atomic,
  callback_url: b.callbackUrl,
  scheme: b.scheme,
  item_count: b.itemCount,
  accepted: b.accepted,
  refused: b.itemCount - b.accepted,
  amount_accepted: formatPaise(b.amountAccepted),
  open_items: b.openItems,
  created_at: b.createdAt.toISOString(),
  completed_at: b.completedAt?.toISOString() ?? null,
});

type BatchFound = NonNullable<Awaited<ReturnType<BulkPayoutService['get']>>>;

/** One batch with its summary by status and every item's verdict (the operator and the merchant console). */
export const batchDetailView = (found: BatchFound) => ({
  ...batchView(found.batch),
  by_status: found.byStatus,
  items: found.items.map((i) => ({
    index: i.index,
    sender_id: i.senderId,
    resp_code: i.code,
    resp_message: i.message,
    transaction_id: i.payoutId,
    status: i.status,
    status_message: i.statusMessage,
    utr_number: i.utr,
  })),
});

/** The sort key of a batch in the list (newest first), as its cursor carries it. */
export const batchKeyOf = (b: PayoutBatch) => `${b.createdAt.toISOString()}|${b.merchantId}|${b.batchId}`;

export function parseBatchKey(key: string) {
  const [at, merchantId, batchId] = key.split('|');
  const createdAt = new Date(at ?? '');
  if (!merchantId || !batchId || Number.isNaN(createdAt.getTime())) return null;
  return { createdAt, merchantId, batchId };
}

/** Operator views of bulk payouts: the batches, and one batch with every item (docs/merchant/bulk-and-verification.md). */
export function adminBatchRoutes(
  app: FastifyInstance,
  deps: { bulkPayouts: BulkPayoutService; merchants: MerchantService },
) {
  app.get(
    '/admin/v1/batches',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'List bulk payout batches, newest first, with cursor pagination',
        ...R['GET /admin/v1/batches'],
        response: { ...R['GET /admin/v1/batches'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const q = request.query as { merchant_id?: string; limit?: string; cursor?: string; from?: string; to?: string };
      const limit = pageLimit(q.limit);
      const key = decodeCursor(q.cursor, (k) => parseBatchKey(k) !== null);
      const rows = await deps.bulkPayouts.page({
        merchantId: q.merchant_id || undefined,
        limit: limit + 1,
        after: key ? (parseBatchKey(key) ?? undefined) : undefined,
        ...createdRange(q),
      });
      const page = pageOf(rows, limit, batchKeyOf);
      return { ...page, data: await withMerchantNames(deps.merchants, page.data.map(batchView)) };
    },
  );

  app.get(
    '/admin/v1/batches/:merchant_id/:batch_id',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'One batch (by merchant and batch_id) with its summary by status and every item',
        ...R['GET /admin/v1/batches/:merchant_id/:batch_id'],
        response: { ...R['GET /admin/v1/batches/:merchant_id/:batch_id'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { merchant_id, batch_id } = request.params as { merchant_id: string; batch_id: string };
      const found = await deps.bulkPayouts.get(merchant_id, batch_id);
      if (!found) throw AdminError.notFound('batch');
      return batchDetailView(found);
    },
  );
}
