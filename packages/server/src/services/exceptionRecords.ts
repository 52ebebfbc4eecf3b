import { formatPaise } from '@payrail/protocol';
import type { Payout } from '../domain/Payout.ts';
import { newConsoleId } from '../domain/ids.ts';
import type { Queryable } from '../store/Database.ts';
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

/** A report's facts as an exception shows them: amounts as rupees text, absent fields left out. */
export function reportedOf(facts: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(facts)) {
    if (v === undefined) continue;
    out[k] = typeof v === 'bigint' ? formatPaise(v) : v;
  }
  return out;
}
