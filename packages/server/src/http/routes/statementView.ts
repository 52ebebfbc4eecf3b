import { formatPaise } from '@payrail/protocol';
import type { Statement } from '../../domain/statement.ts';

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
    entries: s.entries.map((e) => ({
      entry_id: String(e.id),
      created_at: e.at.toISOString(),
      kind: e.kind,
      amount: formatPaise(e.amount),
      balance: formatPaise(e.balance),
      reference: e.reference,
      payout_id: e.payoutId,
      collection_id: e.collectionId,
    })),
  };
}

/** A text cell: quoted when needed, and never read as a formula by a spreadsheet. */
function cell(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * CSV with a header row; the first line after it is the opening balance and the last the closing balance, so
 * the file stands on its own in a spreadsheet.
 */
export function statementCsv(s: Statement): string {
  const lines = ['entry_id,created_at,kind,amount,balance,reference,payout_id,collection_id'];
  const from = s.from?.toISOString() ?? s.entries[0]?.at.toISOString() ?? '';
  lines.push(`,${from},opening_balance,,${formatPaise(s.opening)},,,`);
  for (const e of s.entries) {
    lines.push(
      [
        String(e.id),
        e.at.toISOString(),
        e.kind,
        formatPaise(e.amount),
        formatPaise(e.balance),
        cell(e.reference),
        cell(e.payoutId),
        cell(e.collectionId),
      ].join(','),
    );
  }
  const to = s.to?.toISOString() ?? new Date().toISOString();
  lines.push(`,${to},closing_balance,,${formatPaise(s.closing)},,,`);
  return `${lines.join('\r\n')}\r\n`;
}

export const statementQuerystring = {
  type: 'object',
  properties: {
    from: { type: 'string', maxLength: 40, description: 'ISO date-time, or YYYY-MM-DD (start of that day, IST)' },
    to: {
      type: 'string',
      maxLength: 40,
      description: 'ISO date-time (exclusive), or YYYY-MM-DD (end of that day, IST)',
    },
    format: { type: 'string', enum: ['json', 'csv'] },
  },
} as const;
