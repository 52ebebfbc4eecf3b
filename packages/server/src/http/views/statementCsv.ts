import { formatPaise, spreadsheetCell } from '@payrail/protocol';
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

/**
 * One cell as csvText writes it (a test holds the two to the same bytes): guarded against spreadsheet formulas, quoted
 * when it holds a comma, a quote or a line break. Written here because a statement has hundreds of thousands of lines
 * and csvText's general writer cost most of a line's time.
 */
function cell(value: string | null): string {
  if (value === null || value === '') return '';
  const text = spreadsheetCell(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A page of entry lines. */
export function statementCsvLines(entries: StatementEntry[]): string {
  let text = '';
  for (const e of entries) {
    text += `${e.id},${e.at.toISOString()},${cell(e.kind)},${formatPaise(e.amount)},${formatPaise(e.balance)},${cell(
      e.reference,
    )},${cell(e.payoutId)},${cell(e.collectionId)},${cell(entryDescription(e.kind, e.settlement))}\r\n`;
  }
  return text;
}

/** The closing line: dated `to`, or when it was read for a statement without `to`. */
export function statementCsvTail(head: StatementHead, end: StatementEnd): string {
  const to = head.to?.toISOString() ?? head.readAt.toISOString();
  return csvText([['', to, 'closing_balance', '', formatPaise(end.closing), '', '', '', '']]);
}
