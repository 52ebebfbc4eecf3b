import type { Database } from '../store/Database.ts';

/** Readiness as the operator sees it (`/readyz`): the database answers. */
export class HealthProbe {
  constructor(private readonly db: Database) {}

  async databaseReachable(): Promise<boolean> {
    try {
      await this.db.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }
}
