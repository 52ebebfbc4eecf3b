import type { PayoutBatch } from '../domain/PayoutBatch.ts';
import type { Cursor } from './pageCursor.ts';

/** The sort key of a batch in the list (newest first), as its cursor carries it. */
export const batchKeyOf = (b: PayoutBatch) => `${b.createdAt.toISOString()}|${b.merchantId}|${b.batchId}`;

/** A cursor's key read back (null for one that batchKeyOf did not write). */
export function parseBatchKey(key: string) {
  const [at, merchantId, batchId] = key.split('|');
  const createdAt = new Date(at ?? '');
  if (!merchantId || !batchId || Number.isNaN(createdAt.getTime())) return null;
  return { createdAt, merchantId, batchId };
}

/** The batch list's cursor: it carries the last batch's sort key. */
export const batchCursor: Cursor<PayoutBatch, NonNullable<ReturnType<typeof parseBatchKey>>> = {
  keyOf: batchKeyOf,
  read: parseBatchKey,
};
