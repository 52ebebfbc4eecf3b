/** Console operators: people with accounts and one role each (docs/operator/console.md). */
import { OPERATOR_ROLES } from '@payrail/protocol';

export { OPERATOR_ROLES };
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export interface Operator {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
  disabled: boolean;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

/** viewer reads; finance also credits, resolves and replays; admin also manages merchants and operators. */
const RANK: Record<OperatorRole, number> = { viewer: 0, finance: 1, admin: 2 };

export function roleAllows(role: OperatorRole, needed: OperatorRole): boolean {
  return RANK[role] >= RANK[needed];
}

export function isOperatorRole(value: unknown): value is OperatorRole {
  return typeof value === 'string' && (OPERATOR_ROLES as readonly string[]).includes(value);
}

/** Who acts through the admin API: an operator's session, or the admin token (automation). */
export interface Actor {
  /** Operator id; null for the admin token. */
  operatorId: string | null;
  /** The operator's e-mail address, or `operator:admin-token`. */
  name: string;
  displayName: string;
  role: OperatorRole;
  via: 'token' | 'session';
}

/**
 * What one operator can hand another: an account (with a password of their choosing), a higher role, a return
 * from being disabled, a password. Each is kept as the approval lineage (table operator_grants), from which the
 * database judges whether a checker is independent of a maker: nobody approves the credits of an operator they
 * owe one of these to, however many hands back, nor when one operator set the passwords of both.
 */
export type OperatorGrantKind = 'create' | 'promote' | 're_enable' | 'password';

/** Who granted: the acting operator's id (null for the admin token) and the name the audit log gives them. */
export type Grantor = Pick<Actor, 'operatorId' | 'name'>;

/** The grants a change makes, judged against the operator as it was before it. */
export function grantsOf(
  before: Pick<Operator, 'role' | 'disabled'>,
  change: { role?: OperatorRole; disabled?: boolean; password?: string },
): OperatorGrantKind[] {
  const kinds: OperatorGrantKind[] = [];
  if (change.role !== undefined && RANK[change.role] > RANK[before.role]) kinds.push('promote');
  if (change.disabled === false && before.disabled) kinds.push('re_enable');
  if (change.password !== undefined) kinds.push('password');
  return kinds;
}

const GRANT_WORDS: Record<OperatorGrantKind, string> = {
  create: 'created',
  promote: 'promoted',
  re_enable: 're-enabled',
  password: 'password set',
};

/** The audit log's words for a change's grants, e.g. `lineage: promoted, password set by a@example.com`. */
export function lineageNote(kinds: OperatorGrantKind[], grantor: Grantor): string | null {
  return kinds.length ? `lineage: ${kinds.map((k) => GRANT_WORDS[k]).join(', ')} by ${grantor.name}` : null;
}

export const ADMIN_TOKEN_ACTOR: Actor = {
  operatorId: null,
  name: 'operator:admin-token',
  displayName: 'Admin token',
  role: 'admin',
  via: 'token',
};

/** A reasonable e-mail address: something@domain, no spaces, at most 254 characters. */
export function isEmail(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 254 && /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/.test(value);
}
