import type { Queryable } from '../Database.ts';
import { readSchemaVersion } from '../schemaVersion.ts';

/** What the readiness check asks the database (services/HealthProbe.ts). */
export const HealthRepository = {
  /**
   * The newest migration the database records (another instance may have migrated it since this one started); it
   * throws when the database does not answer, so it is the readiness check's ping as well.
   */
  schemaVersion: (q: Queryable): Promise<number> => readSchemaVersion(q),
};
