/** The history actor of a notification that came through the signed PSP routes (or a PSP integration). */
export const PSP_ACTOR = 'psp';

/**
 * What became of a notification from a PSP or bank (docs/operator/live-mode.md): applied; unchanged (a repeat, or news
 * older than what is recorded); refused (recorded in the history for the operator, the subject does not move);
 * not found; or not a notification at all.
 */
export type NotificationResult =
  | { kind: 'applied' | 'unchanged'; subjectId: string; status: string }
  | { kind: 'refused'; code: NotificationRefusal; subjectId: string; status: string; message: string }
  /** Refused by the checks of outside reports (docs/operator/exceptions.md): recorded as an exception, answered 200. */
  | { kind: 'excepted'; subjectId: string; status: string; exceptionId: string; message: string }
  | { kind: 'not_found' }
  | { kind: 'invalid'; message: string };

/**
 * amount_mismatch: the amount differs (never credited); invalid_state: a return (RETURNED) of a payout that is
 * neither SUCCESS nor returned; the others: the transition or data conflicts.
 */
export type NotificationRefusal =
  | 'amount_mismatch'
  | 'invalid_transition'
  | 'invalid_state'
  | 'utr_conflict'
  | 'reference_conflict'
  | 'utr_required'
  | 'refused';
