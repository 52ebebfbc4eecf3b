import { roleAllows, type Actor } from './Operator.ts';

/** Why an operator may not approve a credit request; null when they may. */
export type ApprovalRefusal = 'forbidden' | 'not_pending' | 'same_operator' | 'lineage_conflict';

/**
 * The maker ≠ checker rule for one credit request and one would-be checker, in the order approving applies it:
 * the finance role or above, a request still pending, a checker other than the requester, and a checker
 * independent of the requester. Independence is the database's judgement (`operators_independent`, the function
 * the approval trigger calls), passed in: the approval itself and the approvals list read the same answer.
 */
export function approvalRefusal(
  request: { status: string; requestedBy: string },
  checker: Pick<Actor, 'name' | 'role'>,
  independent: boolean,
): ApprovalRefusal | null {
  if (!roleAllows(checker.role, 'finance')) return 'forbidden';
  if (request.status !== 'pending') return 'not_pending';
  if (request.requestedBy.toLowerCase() === checker.name.toLowerCase()) return 'same_operator';
  if (!independent) return 'lineage_conflict';
  return null;
}

const GRANT_WORDS: Record<string, string> = {
  create: 'account created by',
  promote: 'promoted by',
  re_enable: 're-enabled by',
  password: 'password set by',
  unrecorded_change: 'changed (before grants were kept) by',
};

/** One grant of the approval lineage in words: "account created by a@example.com". */
export const grantWords = (kind: string, grantedBy: string): string =>
  `${GRANT_WORDS[kind] ?? `${kind} by`} ${grantedBy}`;
