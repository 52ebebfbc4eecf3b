import { formatPaise } from '@payrail/protocol';
import { entryDescription, type StatementEntry } from '../../domain/statement.ts';
import type { StatementEnd, StatementHead } from '../../services/WalletStatementService.ts';
import { csvText } from '../csv.ts';

/**
 * A statement as CSV, written a page at a time (answerStatement streams it): a header row; the first line after it
 * is the opening balance and the last the closing balance, so the file stands on its own in a spreadsheet, and a
 * file cut short (the connection lost mid-way) has no closing_balance line. The last column says each line in words
 * (appended, so the columns before it keep their places).
 */
export function statementCsvHead(head: StatementHead): string {
  const from = head.from?.toISOString() ?? head.firstAt?.toISOString() ?? '';
  return csvText([
    ['entry_id', 'created_at', 'kind', 'amount', 'balance', 'reference', 'payout_id', 'collection_id', 'description'],
    ['', from, 'opening_balance', '', formatPaise(head.opening), '', '', '', ''],
  ]);
}

/** A page of entry lines. */
export function statementCsvLines(entries: StatementEntry[]): string {
  return csvText(
    entries.map((e) => [
      String(e.id),
      e.at.toISOString(),
      e.kind,
      formatPaise(e.amount),
      formatPaise(e.balance),
      e.reference,
      e.payoutId,
      e.collectionId,
      entryDescription(e.kind, e.settlement),
    ]),
  );
}

/** The closing line: dated `to`, or when it was read for a statement without `to`. */
export function statementCsvTail(head: StatementHead, end: StatementEnd): string {
  const to = head.to?.toISOString() ?? head.readAt.toISOString();
  return csvText([['', to, 'closing_balance', '', formatPaise(end.closing), '', '', '', '']]);
}
