import type { Queryable } from '../Database.ts';

type CountRow = { count: string | number | bigint };

const count = async (q: Queryable, sql: string, params: unknown[] = []): Promise<number> => {
  const { rows } = await q.query<CountRow>(sql, params);
  return Number(rows[0]?.count ?? 0);
};

/**
 * The backlog gauges of /metrics (services/BacklogProbe.ts), read at each scrape: each count walks one index over
 * the rows it counts (due jobs: `jobs_due`; due deliveries: the partial `webhook_deliveries_due`; open payouts:
 * `payouts_by_status`), never a table. The rows' times were written with the database's now(), so they are
 * compared with it too, as the worker's claims compare them.
 */
export const BacklogRepository = {
  /** Jobs whose time has come and that no instance holds: what the workers have yet to start. */
  jobsDue: (q: Queryable): Promise<number> =>
    count(
      q,
      `SELECT count(*) AS count FROM jobs
        WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())`,
    ),

  /** Webhook deliveries due for an attempt and not held by an instance's claim. */
  deliveriesDue: (q: Queryable): Promise<number> =>
    count(
      q,
      `SELECT count(*) AS count FROM webhook_deliveries
        WHERE state = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())`,
    ),

  /** Payouts PROCESSING or PENDING whose status has not changed for longer than `olderThanMs`. */
  payoutsStuck: (q: Queryable, olderThanMs: number): Promise<number> =>
    count(
      q,
      `SELECT count(*) AS count FROM payouts
        WHERE status IN ('PROCESSING', 'PENDING') AND updated_at < now() - make_interval(secs => $1::float8 / 1000)`,
      [olderThanMs],
    ),
};
