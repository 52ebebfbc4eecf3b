import type { Queryable } from '../Database.ts';

export interface ConsoleSessionRow {
  token_hash: string;
  kind: 'operator' | 'merchant';
  operator_id: string | null;
  merchant_id: string | null;
  credentials_version: number | null;
  expires_at: Date;
}

export interface NewConsoleSession {
  tokenHash: string;
  kind: 'operator' | 'merchant';
  operatorId?: string;
  merchantId?: string;
  credentialsVersion?: number;
  clientAddress: string;
  expiresAt: Date;
}

/** Browser sessions of the console, known only by the hash of their cookie value. */
export const ConsoleSessionRepository = {
  async insert(q: Queryable, s: NewConsoleSession): Promise<void> {
    await q.query(
      `INSERT INTO console_sessions (token_hash, kind, operator_id, merchant_id, credentials_version, client_address,
         expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        s.tokenHash,
        s.kind,
        s.operatorId ?? null,
        s.merchantId ?? null,
        s.credentialsVersion ?? null,
        s.clientAddress,
        s.expiresAt,
      ],
    );
  },

  /**
   * The live session of this kind at `now`, or null (unknown or expired). `now` is the clock that set
   * `expires_at` (the server's), not the database's.
   */
  async findLive(
    q: Queryable,
    tokenHash: string,
    kind: 'operator' | 'merchant',
    now: Date,
  ): Promise<ConsoleSessionRow | null> {
    const { rows } = await q.query<ConsoleSessionRow>(
      `SELECT token_hash, kind, operator_id, merchant_id, credentials_version, expires_at FROM console_sessions
        WHERE token_hash = $1 AND kind = $2 AND expires_at > $3`,
      [tokenHash, kind, now],
    );
    return rows[0] ?? null;
  },

  async delete(q: Queryable, tokenHash: string): Promise<void> {
    await q.query('DELETE FROM console_sessions WHERE token_hash = $1', [tokenHash]);
  },

  /** Ends every session of an operator (disabled, or role changed). */
  async deleteForOperator(q: Queryable, operatorId: string): Promise<void> {
    await q.query('DELETE FROM console_sessions WHERE operator_id = $1', [operatorId]);
  },

  /** Expired sessions (at `now`, the server's clock) are removed at each sign-in, so the table does not grow without bound. */
  async deleteExpired(q: Queryable, now: Date): Promise<void> {
    await q.query('DELETE FROM console_sessions WHERE expires_at <= $1', [now]);
  },
};
