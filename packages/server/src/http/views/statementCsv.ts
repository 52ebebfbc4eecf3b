import { formatPaise } from '@payrail/protocol';
import { entryDescription, type Statement } from '../../domain/statement.ts';
import { csvText } from '../csv.ts';

/**
 * CSV with a header row; the first line after it is the opening balance and the last the closing balance, so
 * the file stands on its own in a spreadsheet. The last column says each line in words (appended, so the columns
 * before it keep their places). `readAt`: when it was read, the end of a statement without `to`.
 */
export function statementCsv(s: Statement, readAt: Date): string {
  const from = s.from?.toISOString() ?? s.entries[0]?.at.toISOString() ?? '';
  const to = s.to?.toISOString() ?? readAt.toISOString();
  return csvText([
    ['entry_id', 'created_at', 'kind', 'amount', 'balance', 'reference', 'payout_id', 'collection_id', 'description'],
    ['', from, 'opening_balance', '', formatPaise(s.opening), '', '', '', ''],
    ...s.entries.map((e) => [
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
    ['', to, 'closing_balance', '', formatPaise(s.closing), '', '', '', ''],
  ]);
}
