import type { Queryable } from '../Database.ts';
import { readSchemaVersion } from '../schemaVersion.ts';

/** What the readiness check asks the database (services/HealthProbe.ts). */
export const HealthRepository = {
  /** The cheapest statement: resolves when the database answers, throws when it does not. */
  async ping(q: Queryable): Promise<void> {
    await q.query('SELECT 1');
  },

  /** The newest migration the database records (another instance may have migrated it since this one started). */
  schemaVersion: (q: Queryable): Promise<number> => readSchemaVersion(q),
};
