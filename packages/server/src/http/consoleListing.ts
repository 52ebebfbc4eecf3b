import { createdRangeQuery, deliverySummary as deliverySummarySchema } from '@payrail/protocol';
import type { Merchant } from '../domain/Merchant.ts';
import { istDayEnd, istDayStart } from '../domain/istPeriod.ts';
import type { MerchantScope } from '../services/MerchantScope.ts';
import type { WebhookAdminService } from '../services/WebhookAdminService.ts';
import { AdminError } from './AdminError.ts';

/** The schemas of these helpers' query and answer (protocol's). */
export { createdRangeQuery, deliverySummarySchema };

export interface CreatedRange {
  /** Created at or after this instant. */
  createdFrom?: Date;
  /** Created before this instant (the start of the IST day after `to`). */
  createdBefore?: Date;
}

/** The UTC bounds of `from`/`to` IST days; 400 for a day that does not exist or a range that runs backwards. */
export function createdRange(q: { from?: string; to?: string }): CreatedRange {
  const range: CreatedRange = {};
  if (q.from) {
    const start = istDayStart(q.from);
    if (!start) throw AdminError.invalid('from must be a day like 2026-11-22');
    range.createdFrom = start;
  }
  if (q.to) {
    const end = istDayEnd(q.to);
    if (!end) throw AdminError.invalid('to must be a day like 2026-11-22');
    range.createdBefore = end;
  }
  if (range.createdFrom && range.createdBefore && range.createdFrom >= range.createdBefore)
    throw AdminError.invalid('from must not be after to');
  return range;
}

/**
 * Each row with its merchant's name, so that an operator's list reads by name: one lookup per merchant on the
 * page (a page holds at most a hundred rows, usually of a few merchants).
 */
export async function withMerchantNames<T extends { merchant_id: string | null }>(
  merchants: { get(id: string): Promise<Merchant | null> },
  rows: T[],
): Promise<Array<T & { merchant_name: string | null }>> {
  // A platform payout (a deposit returned to its sender) is no merchant's: its name stays null.
  const ids = [...new Set(rows.flatMap((r) => (r.merchant_id === null ? [] : [r.merchant_id])))];
  const found = await Promise.all(ids.map((id) => merchants.get(id)));
  const names = new Map(ids.map((id, i) => [id, found[i]?.name ?? null]));
  return rows.map((r) => ({ ...r, merchant_name: r.merchant_id === null ? null : (names.get(r.merchant_id) ?? null) }));
}

/**
 * The webhook deliveries of one transaction, oldest first, with when the next attempt is due and which earlier
 * delivery each waits for: the worker sends a transaction's events in order, so a failing one holds back the rest.
 */
export async function deliverySummary(webhookAdmin: WebhookAdminService, subjectId: string, scope?: MerchantScope) {
  const rows = await webhookAdmin.page({ subjectId, limit: 200 }, scope);
  const oldestFirst = rows.map((r) => r.delivery).reverse();
  return oldestFirst.map((d, i) => {
    const blocker = oldestFirst.slice(0, i).find((e) => e.state === 'pending');
    return {
      id: d.id,
      type: d.type,
      state: d.state,
      attempt_count: d.attempts,
      next_attempt_at: d.state === 'pending' ? d.nextAttemptAt.toISOString() : null,
      last_status: d.lastStatus,
      last_error: d.lastError,
      waiting_behind: d.state === 'pending' && blocker ? blocker.id : null,
    };
  });
}
