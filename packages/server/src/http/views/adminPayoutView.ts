import { toPayoutWire, type Payout } from '../../domain/Payout.ts';

/** A payout as the operator and the merchant console read it: its wire form with the connector's side. */
export const adminPayoutView = (p: Payout) => ({
  ...toPayoutWire(p),
  merchant_id: p.merchantId,
  exception_id: p.exceptionId ?? null,
  scheme: p.scheme,
  rail: p.rail,
  // The connector chosen at initiation (PAYRAIL_CONNECTOR, PAYRAIL_CONNECTOR_ROUTES); `rail` is its older name.
  connector: p.rail,
  rail_reference: p.railReference,
  rail_error: p.railError,
  failure_reason: p.failureReason,
  // A REFUNDED payout with these was returned after its SUCCESS (it keeps its utr_number); without, it had failed.
  returned_at: p.returnedAt ? p.returnedAt.toISOString() : null,
  return_reason: p.returnReason ?? null,
  // True when `utr_number` is Payrail's own: an operator resolved the payout SUCCESS without the bank's UTR.
  utr_invented: p.utrInvented ?? false,
});
