import { randomUUID } from 'node:crypto';
import type { Queryable } from '../Database.ts';

/** `collection.upstream`: the follow-up of a collection routed upstream (services/UpstreamCollectionService.ts). */
export type JobKind = 'payout.advance' | 'collection.expire' | 'collection.upstream';

export interface Job {
  id: bigint;
  kind: JobKind;
  subjectId: string;
  runAt: Date;
  attempts: number;
  /** The token of this claim: every write of the claimed row must name it (see `complete`, `retryLater`). */
  leaseOwner: string;
}

interface JobRow {
  id: bigint;
  kind: JobKind;
  subject_id: string;
  run_at: Date;
  attempts: number;
  lease_owner: string;
}

const toJob = (r: JobRow): Job => ({
  id: r.id,
  kind: r.kind,
  subjectId: r.subject_id,
  runAt: r.run_at,
  attempts: Number(r.attempts),
  leaseOwner: r.lease_owner,
});

/**
 * The durable outbox of background steps. Jobs are written in the transaction of the change that causes
 * them, claimed with FOR UPDATE SKIP LOCKED under a lease, and deleted in the transaction of their effect.
 * Each claim writes a fresh `lease_owner` token; the claimer's writes name it, so a claimer whose lease was
 * taken over (expired and claimed again) or whose job was rescheduled meanwhile changes nothing.
 */
export const JobRepository = {
  /** Schedules (or reschedules) the one job of this kind for the subject. */
  async schedule(q: Queryable, kind: JobKind, subjectId: string, delayMs: number): Promise<void> {
    await q.query(
      `INSERT INTO jobs (kind, subject_id, run_at) VALUES ($1, $2, now() + make_interval(secs => $3::float8 / 1000))
       ON CONFLICT (kind, subject_id)
       DO UPDATE SET run_at = EXCLUDED.run_at, attempts = 0, locked_until = NULL, lease_owner = NULL,
                     last_error = NULL`,
      [kind, subjectId, delayMs],
    );
  },

  /** `schedule` for several subjects in one statement (the hot path keeps its one-row form above). */
  async scheduleMany(q: Queryable, kind: JobKind, subjectIds: string[], delayMs: number): Promise<void> {
    if (subjectIds.length === 0) return;
    await q.query(
      `INSERT INTO jobs (kind, subject_id, run_at)
       SELECT $1, s, now() + make_interval(secs => $3::float8 / 1000) FROM unnest($2::text[]) AS s
       ON CONFLICT (kind, subject_id)
       DO UPDATE SET run_at = EXCLUDED.run_at, attempts = 0, locked_until = NULL, lease_owner = NULL,
                     last_error = NULL`,
      [kind, subjectIds, delayMs],
    );
  },

  /**
   * Claims up to `limit` due jobs for `leaseMs`; a crashed claimer's jobs become due again when it expires. `kinds`:
   * only jobs of these kinds, or (`except`) of any other kind.
   */
  async claim(
    q: Queryable,
    limit: number,
    leaseMs: number,
    kinds?: { kinds: readonly JobKind[]; except?: boolean },
  ): Promise<Job[]> {
    // Migration 025's function: it carries the planner settings that keep a claim's cost to its limit.
    const { rows } = await q.query<JobRow>('SELECT * FROM jobs_claim($1, $2, $3, $4::text[], $5)', [
      limit,
      leaseMs,
      randomUUID(),
      kinds ? [...kinds.kinds] : null,
      kinds?.except ?? false,
    ]);
    return rows.map(toJob);
  },

  /**
   * Deletes the claimed job; false when it is gone, rescheduled or claimed again since (someone else owns it
   * now), in which case the caller rolls its effect back.
   */
  async complete(q: Queryable, job: Job): Promise<boolean> {
    const { rowCount } = await q.query('DELETE FROM jobs WHERE id = $1 AND lease_owner = $2', [job.id, job.leaseOwner]);
    return rowCount === 1;
  },

  /**
   * `complete` for many claimed jobs in one statement: the ids of those deleted, that is, still held by the claim
   * that returned them. The others are someone else's now, and so is their effect.
   */
  async completeMany(q: Queryable, jobs: readonly Job[]): Promise<Set<bigint>> {
    if (jobs.length === 0) return new Set();
    const { rows } = await q.query<{ id: bigint }>(
      `DELETE FROM jobs AS j USING unnest($1::int8[], $2::text[]) AS c (id, lease_owner)
        WHERE j.id = c.id AND j.lease_owner = c.lease_owner
        RETURNING j.id`,
      [jobs.map((j) => String(j.id)), jobs.map((j) => j.leaseOwner)],
    );
    return new Set(rows.map((r) => BigInt(r.id)));
  },

  /** Puts a job that failed back for a later try; false (nothing written) when the caller lost its lease. */
  async retryLater(q: Queryable, job: Job, delayMs: number, error: string): Promise<boolean> {
    const { rowCount } = await q.query(
      `UPDATE jobs SET run_at = now() + make_interval(secs => $3::float8 / 1000), locked_until = NULL,
              lease_owner = NULL, last_error = $4
        WHERE id = $1 AND lease_owner = $2`,
      [job.id, job.leaseOwner, delayMs, error.slice(0, 500)],
    );
    return rowCount === 1;
  },

  /**
   * Voids every job's lease: for a process that is the only one on its database (PGlite behind the data-dir lock),
   * where the leases left are a crashed process's.
   */
  async voidLeases(q: Queryable): Promise<void> {
    await q.query('UPDATE jobs SET locked_until = NULL WHERE locked_until IS NOT NULL');
  },

  async cancel(q: Queryable, kind: JobKind, subjectId: string): Promise<void> {
    await q.query('DELETE FROM jobs WHERE kind = $1 AND subject_id = $2', [kind, subjectId]);
  },
};
