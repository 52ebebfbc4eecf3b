import type { Queryable } from '../Database.ts';

/** What the readiness check asks the database (services/HealthProbe.ts). */
export const HealthRepository = {
  /** The cheapest statement: resolves when the database answers, throws when it does not. */
  async ping(q: Queryable): Promise<void> {
    await q.query('SELECT 1');
  },
};
