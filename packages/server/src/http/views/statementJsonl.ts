import { formatPaise } from '@payrail/protocol';
import { type StatementEntry } from '../../domain/statement.ts';
import type { StatementEnd, StatementHead } from '../../services/WalletStatementService.ts';
import { statementEntryJson } from './statementJson.ts';

/**
 * A statement as JSON lines (`format=jsonl`, application/x-ndjson), written a page at a time: one JSON object per
 * line, each with its `type`. First `opening` (the statement's range and opening balance), then one `entry` per ledger
 * entry (the fields of the JSON form's entries), then `closing` (closing balance, totals and the number of entries).
 * A file cut short has no `closing` line.
 */
export function statementJsonlHead(head: StatementHead): string {
  return `${JSON.stringify({
    type: 'opening',
    wallet_id: head.walletId,
    currency: 'INR',
    from: head.from?.toISOString() ?? null,
    to: head.to?.toISOString() ?? null,
    opening_balance: formatPaise(head.opening),
  })}\n`;
}

/** A page of entry lines. */
export function statementJsonlLines(entries: StatementEntry[]): string {
  let text = '';
  for (const e of entries) text += `${JSON.stringify({ type: 'entry', ...statementEntryJson(e) })}\n`;
  return text;
}

/** The closing line. */
export function statementJsonlTail(head: StatementHead, end: StatementEnd): string {
  return `${JSON.stringify({
    type: 'closing',
    to: head.to?.toISOString() ?? head.readAt.toISOString(),
    closing_balance: formatPaise(end.closing),
    total_credits: formatPaise(end.credits),
    total_debits: formatPaise(end.debits),
    entries: end.entries,
  })}\n`;
}
