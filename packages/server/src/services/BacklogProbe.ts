import type { Database } from '../store/Database.ts';
import { BacklogRepository, type Backlog } from '../store/repositories/BacklogRepository.ts';

/**
 * What /metrics reports of the work waiting in the database, shared by every instance (so each instance reports
 * the same figures: alert on one, or on max() over them, docs/operator/monitoring.md).
 */
export class BacklogProbe {
  constructor(
    private readonly db: Database,
    /** PAYRAIL_STUCK_PAYOUT_MINUTES, in milliseconds. */
    private readonly stuckAfterMs: number,
  ) {}

  read(): Promise<Backlog> {
    return BacklogRepository.read(this.db, this.stuckAfterMs);
  }
}
