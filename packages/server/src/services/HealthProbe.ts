import type { Database } from '../store/Database.ts';
import { HealthRepository } from '../store/repositories/HealthRepository.ts';

/** Readiness as the operator sees it (`/readyz`): the database answers. */
export class HealthProbe {
  constructor(private readonly db: Database) {}

  async databaseReachable(): Promise<boolean> {
    try {
      await HealthRepository.ping(this.db);
      return true;
    } catch {
      return false;
    }
  }
}
