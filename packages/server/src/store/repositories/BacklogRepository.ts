import type { Queryable } from '../Database.ts';

/** The backlog gauges' figures, read together. */
export interface Backlog {
  jobsDue: number;
  deliveriesDue: number;
  payoutsStuck: number;
}

/**
 * The backlog gauges of /metrics (services/BacklogProbe.ts), read at each scrape in one statement: each count walks
 * one index over the rows it counts (due jobs: `jobs_due`; due deliveries: the partial `webhook_deliveries_due`; open
 * payouts: `payouts_by_status`), never a table. The rows' times were written with the database's now(), so they are
 * compared with it too, as the worker's claims compare them.
 */
export const BacklogRepository = {
  /**
   * Jobs whose time has come and that no instance holds (what the workers have yet to start); webhook deliveries due
   * for an attempt and not held by a claim; payouts PROCESSING or PENDING whose status has not changed for longer
   * than `stuckAfterMs`.
   */
  async read(q: Queryable, stuckAfterMs: number): Promise<Backlog> {
    type N = string | number | bigint;
    const { rows } = await q.query<{ jobs: N; deliveries: N; stuck: N }>(
      `SELECT (SELECT count(*) FROM jobs
                WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())) AS jobs,
              (SELECT count(*) FROM webhook_deliveries
                WHERE state = 'pending' AND next_attempt_at <= now()
                  AND (locked_until IS NULL OR locked_until < now())) AS deliveries,
              (SELECT count(*) FROM payouts
                WHERE status IN ('PROCESSING', 'PENDING')
                  AND updated_at < now() - make_interval(secs => $1::float8 / 1000)) AS stuck`,
      [stuckAfterMs],
    );
    const r = rows[0];
    return {
      jobsDue: Number(r?.jobs ?? 0),
      deliveriesDue: Number(r?.deliveries ?? 0),
      payoutsStuck: Number(r?.stuck ?? 0),
    };
  },
};
