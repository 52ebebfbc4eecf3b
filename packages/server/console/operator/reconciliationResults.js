// The results a reconciliation item can have, in the order the runs list and a run's chips show them.
export const RECONCILIATION_RESULTS = [
  'matched',
  'amount_mismatch',
  'unmatched',
  'missing',
  'paid_but_refunded',
  'return_not_applied',
];
