// A REFUNDED payout either failed (its money came back at once) or was returned by the bank after its SUCCESS:
// `returned_at` tells them apart (docs/operator/admin-api.md, "Returns"). Lists and detail cards say which.

/** "returned by the bank" or "failed, refunded" for a REFUNDED payout; '' for any other. */
export const refundKind = (p) =>
  p.status !== 'REFUNDED' ? '' : p.returned_at ? 'returned by the bank' : 'failed, refunded';
