import type { PayoutStatus } from '@payrail/protocol';
import { canTransition } from './payoutStateMachine.ts';

/** What Payrail makes of a connector's answer to a submission. */
export type SubmitDecision =
  | { kind: 'accepted'; reference: string | null }
  | { kind: 'refused'; reason: string }
  /** Refused for now: submitted again later (the payout stays INITIATED). */
  | { kind: 'temporary'; reason: string }
  | { kind: 'invalid'; error: string };

/** What Payrail makes of an outcome a connector reports (poll or notification) for a payout in `current`. */
export type OutcomeDecision =
  | { kind: 'unchanged' }
  | { kind: 'move'; to: 'PROCESSING' | 'PENDING' | 'SUCCESS' | 'FAILED'; reason?: string; utr?: string }
  /** SUCCESS → REFUNDED: the money of a transfer that succeeded came back (PayoutLifecycle.returnPayout). */
  | { kind: 'return'; reason: string }
  | { kind: 'invalid'; error: string };

/** What an outcome is judged against besides the status: whether the payout was returned, and its UTR. */
export interface OutcomeContext {
  returned?: boolean;
  utr?: string;
}

const MAX_REASON = 255;
const MAX_REFERENCE = 100;
const UTR_PATTERN = /^[\x21-\x7e]{1,40}$/;
const OUTCOMES = ['PROCESSING', 'PENDING', 'SUCCESS', 'FAILED', 'RETURNED', 'REFUNDED'] as const;
/** Reports that, about a SUCCESS payout, mean its money came back. */
const RETURN_REPORTS: readonly string[] = ['RETURNED', 'REFUNDED', 'FAILED'];
/** The reason of a return the bank did not explain: the status message still says what happened. */
export const UNEXPLAINED_RETURN = 'no reason given by the bank';

/** A connector's free text, made storable: no NUL or other control characters, bounded length. */
function cleanText(value: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, max);
}

/** A short, storable rendering of whatever a connector answered, for the operator. */
export function describeAnswer(answer: unknown): string {
  if (answer instanceof Error) return cleanText(`threw ${answer.name}: ${answer.message}`, MAX_REASON);
  let text: string;
  try {
    text = JSON.stringify(answer, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) ?? String(answer);
  } catch {
    text = Object.prototype.toString.call(answer);
  }
  return cleanText(text, 200);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `submit` may only answer accepted (with an optional reference) or refused, for good or for now (with a reason). */
export function readSubmitAnswer(answer: unknown): SubmitDecision {
  if (isRecord(answer) && answer.accepted === true) {
    const ref = answer.reference;
    if (ref === undefined || ref === null) return { kind: 'accepted', reference: null };
    if (
      typeof ref === 'string' &&
      ref.length > 0 &&
      ref.length <= MAX_REFERENCE &&
      cleanText(ref, MAX_REFERENCE) === ref
    ) {
      return { kind: 'accepted', reference: ref };
    }
  } else if (isRecord(answer) && answer.accepted === false) {
    const reason = typeof answer.reason === 'string' && answer.reason.trim() ? answer.reason : 'Refused by the bank';
    return { kind: answer.temporary === true ? 'temporary' : 'refused', reason: cleanText(reason, MAX_REASON) };
  }
  if (answer instanceof Error) {
    return { kind: 'invalid', error: `submit ${describeAnswer(answer)}; outcome unknown, ask the bank` };
  }
  return { kind: 'invalid', error: `submit answered neither accepted nor refused: ${describeAnswer(answer)}` };
}

/**
 * An outcome is applied only if the transition table allows it from `current`; the same status again is no
 * news. SUCCESS needs a UTR. About a SUCCESS payout, RETURNED, REFUNDED or FAILED is a return; about a returned
 * one, the return again or the SUCCESS it had (same UTR) is no news; about any other payout a return is invalid.
 */
export function readOutcome(current: PayoutStatus, answer: unknown, context: OutcomeContext = {}): OutcomeDecision {
  if (answer === null || answer === undefined) return { kind: 'unchanged' };
  const status = isRecord(answer) ? answer.status : undefined;
  if (typeof status !== 'string' || !(OUTCOMES as readonly string[]).includes(status)) {
    return {
      kind: 'invalid',
      error: `the connector reported something that is not an outcome: ${describeAnswer(answer)}`,
    };
  }
  const a = answer as Record<string, unknown>;
  const reason = typeof a.reason === 'string' && a.reason.trim() ? cleanText(a.reason, MAX_REASON) : undefined;
  if (current === 'SUCCESS' && RETURN_REPORTS.includes(status)) {
    return { kind: 'return', reason: reason?.trim() || UNEXPLAINED_RETURN };
  }
  if (context.returned && (RETURN_REPORTS.includes(status) || (status === 'SUCCESS' && a.utr === context.utr))) {
    return { kind: 'unchanged' };
  }
  if (status === 'RETURNED' || status === 'REFUNDED') {
    return {
      kind: 'invalid',
      error: `the connector reported ${status} for a ${current} payout: only a SUCCESS payout can be returned`,
    };
  }
  const to = status as 'PROCESSING' | 'PENDING' | 'SUCCESS' | 'FAILED';
  if (to === current) return { kind: 'unchanged' };
  if (!canTransition(current, to)) {
    return {
      kind: 'invalid',
      error: `the connector reported ${to} for a ${current} payout: not an allowed transition`,
    };
  }
  if (to === 'SUCCESS') {
    if (typeof a.utr !== 'string' || !UTR_PATTERN.test(a.utr)) {
      return {
        kind: 'invalid',
        error: `the connector reported SUCCESS without a valid UTR: ${describeAnswer(answer)}`,
      };
    }
    return { kind: 'move', to, utr: a.utr };
  }
  return { kind: 'move', to, reason };
}
