import { formatPaise } from '@payrail/protocol';
import { entryDescription, type Statement, type StatementEntry } from '../../domain/statement.ts';

/** One entry as the JSON form and the JSON lines form both say it. */
export function statementEntryJson(e: StatementEntry) {
  return {
    entry_id: String(e.id),
    created_at: e.at.toISOString(),
    kind: e.kind,
    description: entryDescription(e.kind, e.settlement),
    amount: formatPaise(e.amount),
    balance: formatPaise(e.balance),
    reference: e.reference,
    payout_id: e.payoutId,
    collection_id: e.collectionId,
    sender_id: e.senderId ?? null,
  };
}

/** A statement as JSON: amounts as decimal text, like every admin answer. */
export function statementJson(s: Statement) {
  return {
    wallet_id: s.walletId,
    currency: 'INR',
    from: s.from?.toISOString() ?? null,
    to: s.to?.toISOString() ?? null,
    opening_balance: formatPaise(s.opening),
    total_credits: formatPaise(s.credits),
    total_debits: formatPaise(s.debits),
    closing_balance: formatPaise(s.closing),
    entries: s.entries.map(statementEntryJson),
  };
}
