import type { Grantor, Operator, OperatorGrantKind, OperatorRole } from '../../domain/Operator.ts';
import type { Queryable } from '../Database.ts';

interface OperatorRow {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
  password_hash: string;
  disabled: boolean;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

const toOperator = (r: OperatorRow): Operator => ({
  id: r.id,
  email: r.email,
  name: r.name,
  role: r.role,
  disabled: r.disabled,
  createdBy: r.created_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface NewOperator {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
  passwordHash: string;
  createdBy: string;
}

export interface OperatorPatch {
  role?: OperatorRole;
  disabled?: boolean;
  name?: string;
  passwordHash?: string;
}

export const OperatorRepository = {
  /** Null when the address is already taken. */
  async insert(q: Queryable, o: NewOperator): Promise<Operator | null> {
    const { rows } = await q.query<OperatorRow>(
      `INSERT INTO operators (id, email, name, role, password_hash, created_by) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT DO NOTHING RETURNING *`,
      [o.id, o.email, o.name, o.role, o.passwordHash, o.createdBy],
    );
    return rows[0] ? toOperator(rows[0]) : null;
  },

  async findById(q: Queryable, id: string): Promise<Operator | null> {
    const { rows } = await q.query<OperatorRow>('SELECT * FROM operators WHERE id = $1', [id]);
    return rows[0] ? toOperator(rows[0]) : null;
  },

  /** The operator as it stands, held until the transaction ends, so that what a change grants is known. */
  async lockById(q: Queryable, id: string): Promise<Operator | null> {
    const { rows } = await q.query<OperatorRow>('SELECT * FROM operators WHERE id = $1 FOR UPDATE', [id]);
    return rows[0] ? toOperator(rows[0]) : null;
  },

  /**
   * Records what `grantor` handed the operator (the approval lineage); append-only in the database. Written in
   * the transaction of the change itself, so that no change exists without its lineage.
   */
  async insertGrants(q: Queryable, operatorId: string, kinds: OperatorGrantKind[], grantor: Grantor): Promise<void> {
    for (const kind of kinds) {
      await q.query(
        'INSERT INTO operator_grants (operator_id, kind, granted_by, granted_by_id) VALUES ($1, $2, $3, $4)',
        [operatorId, kind, grantor.name, grantor.operatorId],
      );
    }
  },

  /**
   * The operator and the stored password hash, for sign-in. `email` comes normalised (domain/signInIdentity);
   * the stored address is compared lower-cased, because rows written before addresses were normalised on
   * create may be in mixed case.
   */
  async findForSignIn(q: Queryable, email: string): Promise<{ operator: Operator; passwordHash: string } | null> {
    const { rows } = await q.query<OperatorRow>('SELECT * FROM operators WHERE lower(email) = lower($1)', [email]);
    const row = rows[0];
    return row ? { operator: toOperator(row), passwordHash: row.password_hash } : null;
  },

  async list(q: Queryable): Promise<Operator[]> {
    const { rows } = await q.query<OperatorRow>('SELECT * FROM operators ORDER BY id');
    return rows.map(toOperator);
  },

  async update(q: Queryable, id: string, patch: OperatorPatch): Promise<Operator | null> {
    const { rows } = await q.query<OperatorRow>(
      `UPDATE operators SET role = coalesce($2, role), disabled = coalesce($3, disabled), name = coalesce($4, name),
              password_hash = coalesce($5, password_hash), updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id, patch.role ?? null, patch.disabled ?? null, patch.name ?? null, patch.passwordHash ?? null],
    );
    return rows[0] ? toOperator(rows[0]) : null;
  },
};
