import { formatPaise } from '@payrail/protocol';
import type { Payout } from '../domain/Payout.ts';
import { newConsoleId } from '../domain/ids.ts';
import type { Queryable } from '../store/Database.ts';
import type { ReportRefusalKind } from '../domain/outsideReport.ts';
import { ExceptionRepository, type NewException } from '../store/repositories/ExceptionRepository.ts';

/**
 * Records exceptions in the caller's transaction, each once (by source and content): the same report again answers
 * the first one's id and records nothing. `now` is the composition root's clock reading.
 */
export function recordExceptions(tx: Queryable, items: readonly NewException[], now: number): Promise<string[]> {
  return ExceptionRepository.record(tx, items, () => newConsoleId('EX', now), new Date(now));
}

/** What Payrail holds of a payout, as an exception shows it beside what was reported. */
export function heldOf(payout: Payout, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    status: payout.status,
    amount: formatPaise(payout.amount),
    currency: 'INR',
    connector: payout.rail,
    rail_reference: payout.railReference,
    utr: payout.utr || null,
    ...(payout.returnedAt ? { returned: true } : {}),
    ...extra,
  };
}

/** What a refused report said of a payout: its outcome, and the amount it carried with its currency (INR unless said). */
export interface RefusedOutcome {
  status?: unknown;
  utr?: unknown;
  reason?: unknown;
  amount?: bigint;
  currency?: string;
}

/**
 * The exception of a report about `payout` that failed the checks of outside reports (domain/outsideReport.ts), as
 * every source records it: what was reported (with the source's own facts in `more.reported`) beside what Payrail
 * holds, the payout's amount at stake.
 */
export function refusedReport(
  payout: Payout,
  refusal: { kind: ReportRefusalKind; reason: string },
  source: string,
  outcome: RefusedOutcome,
  more: { sourceRef?: string; reported?: Record<string, unknown>; held?: Record<string, unknown> } = {},
): NewException {
  return {
    kind: refusal.kind,
    source,
    sourceRef: more.sourceRef ?? null,
    merchantId: payout.merchantId,
    payoutId: payout.id,
    walletId: payout.walletId,
    amount: payout.amount,
    reported: reportedOf({
      status: outcome.status,
      utr: outcome.utr,
      reason: outcome.reason,
      amount: outcome.amount,
      currency: outcome.amount === undefined ? undefined : (outcome.currency ?? 'INR'),
      ...more.reported,
    }),
    held: heldOf(payout, more.held),
    reason: refusal.reason,
  };
}

/** A report's facts as an exception shows them: amounts as rupees text, absent fields left out. */
export function reportedOf(facts: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(facts)) {
    if (v === undefined) continue;
    out[k] = typeof v === 'bigint' ? formatPaise(v) : v;
  }
  return out;
}
