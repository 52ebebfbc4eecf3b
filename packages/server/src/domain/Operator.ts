/** Console operators: people with accounts and one role each (CONTRACT.md §12). */
export const OPERATOR_ROLES = ['viewer', 'finance', 'admin'] as const;
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
