import type { FromSchema, operatorPatchBody } from '@payrail/protocol';
import { newConsoleId } from '../domain/ids.ts';
import {
  grantsOf,
  type Grantor,
  type Operator,
  type OperatorGrantKind,
  type OperatorRole,
} from '../domain/Operator.ts';
import { hashPassword, type ScryptCost } from '../domain/passwordHash.ts';
import { signInEmail } from '../domain/signInIdentity.ts';
import type { Database } from '../store/Database.ts';
import { ConsoleSessionRepository } from '../store/repositories/ConsoleSessionRepository.ts';
import { OperatorRepository } from '../store/repositories/OperatorRepository.ts';
import type { Clock } from '../clock.ts';

/** A change to an operator: the body of PATCH /admin/v1/operators/{operator_id} as its schema declares it. */
export type OperatorChange = FromSchema<typeof operatorPatchBody>;

/** An operator after a change, with what the change granted them (their approval lineage). */
export interface GrantedOperator {
  operator: Operator;
  grants: OperatorGrantKind[];
}

/**
 * Operator accounts: created by an admin (or the admin token), changed, disabled; never deleted (audit). Every
 * creation, promotion, re-enabling and password set is recorded as a grant from the acting operator, in the
 * same transaction, because the database refuses an approval between operators so linked.
 */
export class OperatorService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly passwordCost: ScryptCost,
  ) {}

  /** Null when an operator with this address exists. */
  async create(input: {
    email: string;
    name: string;
    role: OperatorRole;
    password: string;
    grantor: Grantor;
  }): Promise<GrantedOperator | null> {
    const passwordHash = await hashPassword(input.password, this.passwordCost);
    return this.db.transaction(async (tx) => {
      const operator = await OperatorRepository.insert(tx, {
        id: newConsoleId('OP', this.clock()),
        // Stored as sign-in looks it up, so that a fullwidth or other-case twin is the same account (409).
        email: signInEmail(input.email),
        name: input.name.trim(),
        role: input.role,
        passwordHash,
        createdBy: input.grantor.name,
      });
      if (!operator) return null;
      await OperatorRepository.insertGrants(tx, operator.id, ['create'], input.grantor);
      return { operator, grants: ['create'] };
    });
  }

  list(): Promise<Operator[]> {
    return OperatorRepository.list(this.db);
  }

  get(id: string): Promise<Operator | null> {
    return OperatorRepository.findById(this.db, id);
  }

  /**
   * A change of role, password or a disabling ends the operator's open sessions. A promotion, a re-enabling and
   * a password set are grants from `grantor`; a demotion, a disabling and a new name are not.
   */
  async update(id: string, change: OperatorChange, grantor: Grantor): Promise<GrantedOperator | null> {
    const passwordHash =
      change.password === undefined ? undefined : await hashPassword(change.password, this.passwordCost);
    return this.db.transaction(async (tx) => {
      // Locked so that the grants are judged against the operator as this change finds it.
      const before = await OperatorRepository.lockById(tx, id);
      if (!before) return null;
      const grants = grantsOf(before, change);
      const updated = await OperatorRepository.update(tx, id, {
        role: change.role,
        disabled: change.disabled,
        name: change.name?.trim(),
        passwordHash,
      });
      if (!updated) return null;
      await OperatorRepository.insertGrants(tx, id, grants, grantor);
      if (change.role !== undefined || change.disabled === true || passwordHash !== undefined) {
        await ConsoleSessionRepository.deleteForOperator(tx, id);
      }
      return { operator: updated, grants };
    });
  }
}
