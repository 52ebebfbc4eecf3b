import type { PayoutBatch } from '../domain/PayoutBatch.ts';

/** The sort key of a batch in the list (newest first), as its cursor carries it. */
export const batchKeyOf = (b: PayoutBatch) => `${b.createdAt.toISOString()}|${b.merchantId}|${b.batchId}`;

/** A cursor's key read back (null for one that batchKeyOf did not write). */
export function parseBatchKey(key: string) {
  const [at, merchantId, batchId] = key.split('|');
  const createdAt = new Date(at ?? '');
  if (!merchantId || !batchId || Number.isNaN(createdAt.getTime())) return null;
  return { createdAt, merchantId, batchId };
}
