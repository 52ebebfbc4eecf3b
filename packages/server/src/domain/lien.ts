/**
 * What a wallet can spend (docs/operator/liens.md): its balance less what its active liens hold, never below zero.
 * The database applies the same rule to payouts (payout_open, migration 033); this is the answers' view of it.
 */
export function spendable(balance: bigint, onLien: bigint): bigint {
  return balance > onLien ? balance - onLien : 0n;
}
