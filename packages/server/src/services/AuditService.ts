import type { Database } from '../store/Database.ts';
import { AuditRepository, type AuditEntry, type NewAuditEntry } from '../store/repositories/AuditRepository.ts';

export type { AuditEntry };

/** The audit log of operator (and merchant console) actions. */
export class AuditService {
  constructor(private readonly db: Database) {}

  record(entry: NewAuditEntry): Promise<void> {
    return AuditRepository.insert(this.db, entry);
  }

  /**
   * Records a refusal of a client that nothing else bounds (a wrong admin token, a throttled or cross-origin
   * sign-in) in one counted row per action, status, client address, detail and minute, so that a flood of them
   * grows a count, not the log. `entry.detail` holds only the server's own words.
   */
  count(entry: NewAuditEntry): Promise<void> {
    return AuditRepository.count(this.db, entry);
  }

  page(query: { limit: number; before?: bigint; actor?: string }): Promise<AuditEntry[]> {
    return AuditRepository.page(this.db, query);
  }
}
