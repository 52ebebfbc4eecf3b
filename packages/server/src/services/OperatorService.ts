import { newConsoleId } from '../domain/ids.ts';
import type { Operator, OperatorRole } from '../domain/Operator.ts';
import { hashPassword } from '../domain/passwordHash.ts';
import type { Database } from '../store/Database.ts';
import { ConsoleSessionRepository } from '../store/repositories/ConsoleSessionRepository.ts';
import { OperatorRepository } from '../store/repositories/OperatorRepository.ts';

export interface OperatorChange {
  role?: OperatorRole;
  disabled?: boolean;
  name?: string;
  password?: string;
}

/** Operator accounts: created by an admin (or the admin token), changed, disabled; never deleted (audit). */
export class OperatorService {
  constructor(private readonly db: Database) {}

  /** Null when an operator with this address exists. */
  async create(input: {
    email: string;
    name: string;
    role: OperatorRole;
    password: string;
    createdBy: string;
  }): Promise<Operator | null> {
    return OperatorRepository.insert(this.db, {
      id: newConsoleId('OP'),
      email: input.email.trim(),
      name: input.name.trim(),
      role: input.role,
      passwordHash: await hashPassword(input.password),
      createdBy: input.createdBy,
    });
  }

  list(): Promise<Operator[]> {
    return OperatorRepository.list(this.db);
  }

  get(id: string): Promise<Operator | null> {
    return OperatorRepository.findById(this.db, id);
  }

  /** A change of role, password or a disabling ends the operator's open sessions. */
  async update(id: string, change: OperatorChange): Promise<Operator | null> {
    const passwordHash = change.password === undefined ? undefined : await hashPassword(change.password);
    return this.db.transaction(async (tx) => {
      const updated = await OperatorRepository.update(tx, id, {
        role: change.role,
        disabled: change.disabled,
        name: change.name?.trim(),
        passwordHash,
      });
      if (updated && (change.role !== undefined || change.disabled === true || passwordHash !== undefined)) {
        await ConsoleSessionRepository.deleteForOperator(tx, id);
      }
      return updated;
    });
  }
}
