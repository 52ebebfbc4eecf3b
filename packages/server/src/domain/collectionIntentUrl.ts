import type { Collection } from './Collection.ts';
import { upiIntentUrl } from './upiIntent.ts';

/** The UPI link that pays this collection to its payee (routed upstream: the upstream's link). */
export function collectionIntentUrl(c: Collection): string {
  if (c.upstream) return c.upstream.intentUrl;
  return upiIntentUrl({
    payeeVpa: c.payeeVpa,
    payeeName: c.payeeName,
    amount: c.amount,
    txnId: c.id,
    remarks: c.remarks,
  });
}
