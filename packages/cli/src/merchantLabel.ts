import type { Row } from './adminClient.ts';
import type { Cell } from './output.ts';

/**
 * An id shortened as the console shortens it (`MR01JD…4D`): the first six characters and the last two, enough to
 * tell rows apart at a glance; the full id is in `--json` and in the show commands.
 */
export const shortId = (id: string): string => (id.length > 12 ? `${id.slice(0, 6)}…${id.slice(-2)}` : id);

/**
 * Whose row it is, as an operator's list shows it: the merchant's name with its short id, since names need not be
 * unique (`Acme Traders (MR01JD…4D)`); `platform` for the platform's own payout (a deposit returned to its sender,
 * no merchant's); the id alone when the answer has no name.
 */
export function merchantLabel(row: Row, short = true): Cell {
  if (row.merchant_id === null) return 'platform';
  if (typeof row.merchant_id !== 'string') return null;
  const id = short ? shortId(row.merchant_id) : row.merchant_id;
  const name = typeof row.merchant_name === 'string' ? row.merchant_name.trim() : '';
  return name ? `${name} (${id})` : row.merchant_id;
}
