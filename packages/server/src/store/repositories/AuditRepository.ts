import type { Queryable } from '../Database.ts';

export type AuditOutcome = 'ok' | 'denied' | 'failed';

export interface AuditEntry {
  id: bigint;
  at: Date;
  actor: string;
  actorName: string;
  actorRole: string;
  action: string;
  target: string;
  clientAddress: string;
  outcome: AuditOutcome;
  httpStatus: number;
  detail: string;
  /** How many refusals a counted row stands for (1 for a row of one event). */
  count: number;
  /** The minute a counted row stands for; null for a row of one event. */
  minute: Date | null;
}

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'at' | 'count' | 'minute'>;

interface AuditRow {
  id: bigint;
  at: Date;
  actor: string;
  actor_name: string;
  actor_role: string;
  action: string;
  target: string;
  client_address: string;
  outcome: AuditOutcome;
  http_status: number;
  detail: string;
  count: number;
  minute: Date | null;
}

const toEntry = (r: AuditRow): AuditEntry => ({
  id: BigInt(r.id),
  at: r.at,
  actor: r.actor,
  actorName: r.actor_name,
  actorRole: r.actor_role,
  action: r.action,
  target: r.target,
  clientAddress: r.client_address,
  outcome: r.outcome,
  httpStatus: Number(r.http_status),
  detail: r.detail,
  count: Number(r.count),
  minute: r.minute,
});

/** The append-only audit log (a trigger refuses UPDATE and DELETE, but for a counted row's count growing). */
export const AuditRepository = {
  async insert(q: Queryable, e: NewAuditEntry): Promise<void> {
    await q.query(
      `INSERT INTO audit_log (actor, actor_name, actor_role, action, target, client_address, outcome, http_status,
         detail)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [e.actor, e.actorName, e.actorRole, e.action, e.target, e.clientAddress, e.outcome, e.httpStatus, e.detail],
    );
  },

  /**
   * Counts one more of a refusal in the row of its action, status, client address and detail for the current
   * minute (the database's clock, as `at`), creating the row on the first: however many arrive, one row each
   * minute. The row keeps the first refusal's actor. `detail` must hold only the server's own words (it is part
   * of the key: a value the client chose would give it a fresh row per request).
   */
  async count(q: Queryable, e: NewAuditEntry): Promise<void> {
    await q.query(
      `INSERT INTO audit_log (actor, actor_name, actor_role, action, target, client_address, outcome, http_status,
         detail, minute)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, date_trunc('minute', now()))
       ON CONFLICT (action, http_status, client_address, detail, minute) WHERE minute IS NOT NULL
       DO UPDATE SET count = audit_log.count + 1`,
      [e.actor, e.actorName, e.actorRole, e.action, e.target, e.clientAddress, e.outcome, e.httpStatus, e.detail],
    );
  },

  /** Newest first; `before` is the id of the last entry of the previous page. */
  async page(q: Queryable, query: { limit: number; before?: bigint; actor?: string }): Promise<AuditEntry[]> {
    const params: unknown[] = [];
    const where: string[] = [];
    if (query.before !== undefined) {
      params.push(query.before);
      where.push(`id < $${params.length}`);
    }
    if (query.actor !== undefined) {
      params.push(query.actor);
      where.push(`lower(actor) = lower($${params.length})`);
    }
    params.push(query.limit);
    const { rows } = await q.query<AuditRow>(
      `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toEntry);
  },
};
