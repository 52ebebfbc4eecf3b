import type { Database } from '../store/Database.ts';
import { AuditRepository, type AuditEntry, type NewAuditEntry } from '../store/repositories/AuditRepository.ts';

export type { AuditEntry };

/** The audit log of operator (and merchant console) actions. */
export class AuditService {
  constructor(private readonly db: Database) {}

  record(entry: NewAuditEntry): Promise<void> {
    return AuditRepository.insert(this.db, entry);
  }

  page(query: { limit: number; before?: bigint; actor?: string }): Promise<AuditEntry[]> {
    return AuditRepository.page(this.db, query);
  }
}
