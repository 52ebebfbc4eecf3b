import type { PayoutStatus } from '@payrail/protocol';
import type { Payout } from '../../domain/Payout.ts';
import type { Queryable } from '../Database.ts';
import { toPayout, type PayoutRow } from './PayoutRepository.ts';

/** A cut file as the operator lists it. */
export interface BankFileSummary {
  msgId: string;
  createdAt: Date;
  payoutCount: number;
  /** Paise. */
  ctrlSum: bigint;
  deliveredAt: Date | null;
  /** How many of its payouts are in each status now. */
  states: Record<string, number>;
}

export interface InboundBankFile {
  sha256: string;
  name: string;
  messageType: string | null;
  state: 'applied' | 'failed';
  reason: string | null;
  entries: number;
  refused: number;
  receivedAt: Date;
}

/** Delivery is leased for this long: an instance that crashed mid-delivery leaves it to another after that. */
export const DELIVERY_LEASE = '2 minutes';

/** Two instances never cut at once: the cut runs under this transaction-level advisory lock. */
const CUT_LOCK = 0x62616e6b; // "bank"
/** Two instances never apply the same inbox at once. */
const INBOX_LOCK = 0x696e6278; // "inbx"

/** Takes a transaction-level advisory lock if no other transaction holds it; false (not waited for) when one does. */
async function tryTransactionLock(q: Queryable, key: number): Promise<boolean> {
  const { rows } = await q.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [key]);
  return rows[0]?.ok === true;
}

interface FileRow {
  msg_id: string;
  created_at: Date;
  payout_count: number;
  ctrl_sum: bigint;
  delivered_at: Date | null;
  states: Record<string, number | string> | null;
}

export const BankFileRepository = {
  /** The cut-off's lock, until the transaction ends; false when another instance is cutting (jobs/BankFileCutoff.ts). */
  tryLockCutoff(q: Queryable): Promise<boolean> {
    return tryTransactionLock(q, CUT_LOCK);
  },

  /** The inbox's lock, until the transaction ends; false when another instance is applying a file. */
  tryLockInbox(q: Queryable): Promise<boolean> {
    return tryTransactionLock(q, INBOX_LOCK);
  },

  /**
   * The payouts routed to bank files that wait for a file: INITIATED and in none yet, oldest first, locked (a
   * payout another transaction holds is left for the next cut-off, never waited for).
   */
  async claimWaiting(q: Queryable, limit: number): Promise<Payout[]> {
    const { rows } = await q.query<PayoutRow>(
      `SELECT p.* FROM payouts p
        WHERE p.rail = 'bankfile' AND p.status = 'INITIATED'
          AND NOT EXISTS (SELECT 1 FROM bank_file_items i WHERE i.payout_id = p.id)
        ORDER BY p.created_at, p.id
        LIMIT $1
        FOR UPDATE OF p SKIP LOCKED`,
      [limit],
    );
    return rows.map(toPayout);
  },

  /** Records a cut file and its payouts; the unique payout_id refuses a payout already in a file. */
  async insertFile(
    q: Queryable,
    file: { msgId: string; xml: string; ctrlSum: bigint; payoutIds: string[] },
  ): Promise<void> {
    await q.query(
      `INSERT INTO bank_files (msg_id, payout_count, ctrl_sum, xml, delivery_lease_until)
       VALUES ($1, $2, $3, $4, now() + interval '${DELIVERY_LEASE}')`,
      [file.msgId, file.payoutIds.length, file.ctrlSum, file.xml],
    );
    await q.query('INSERT INTO bank_file_items (msg_id, payout_id) SELECT $1, unnest($2::text[])', [
      file.msgId,
      file.payoutIds,
    ]);
  },

  /** Undelivered files whose delivery nobody holds (its instance crashed): leased to the caller now. */
  async leaseUndelivered(q: Queryable): Promise<{ msgId: string; xml: string }[]> {
    const { rows } = await q.query<{ msg_id: string; xml: string }>(
      `UPDATE bank_files SET delivery_lease_until = now() + interval '${DELIVERY_LEASE}'
        WHERE delivered_at IS NULL AND (delivery_lease_until IS NULL OR delivery_lease_until < now())
        RETURNING msg_id, xml`,
    );
    return rows.map((r) => ({ msgId: r.msg_id, xml: r.xml }));
  },

  /** Marks the file delivered; false when it already was (another instance). */
  async markDelivered(q: Queryable, msgId: string): Promise<boolean> {
    const { rowCount } = await q.query(
      'UPDATE bank_files SET delivered_at = now(), delivery_lease_until = NULL WHERE msg_id = $1 AND delivered_at IS NULL',
      [msgId],
    );
    return rowCount > 0;
  },

  async payoutIdsOf(q: Queryable, msgId: string): Promise<string[]> {
    const { rows } = await q.query<{ payout_id: string }>(
      'SELECT payout_id FROM bank_file_items WHERE msg_id = $1 ORDER BY payout_id',
      [msgId],
    );
    return rows.map((r) => r.payout_id);
  },

  /** The status of each payout of a cut file, locked FOR UPDATE in one statement, in id order. */
  async lockPayoutsOf(q: Queryable, msgId: string): Promise<Pick<Payout, 'id' | 'status'>[]> {
    const { rows } = await q.query<{ id: string; status: PayoutStatus }>(
      `SELECT p.id, p.status FROM payouts p
        WHERE p.id IN (SELECT i.payout_id FROM bank_file_items i WHERE i.msg_id = $1)
        ORDER BY p.id FOR UPDATE OF p`,
      [msgId],
    );
    return rows;
  },

  /** The file each of these payouts went into (payout id → MsgId), for those in one; one query. */
  async msgIdsOf(q: Queryable, payoutIds: readonly string[]): Promise<Map<string, string>> {
    if (payoutIds.length === 0) return new Map();
    const { rows } = await q.query<{ payout_id: string; msg_id: string }>(
      'SELECT payout_id, msg_id FROM bank_file_items WHERE payout_id = ANY($1::text[])',
      [[...payoutIds]],
    );
    return new Map(rows.map((r) => [r.payout_id, r.msg_id]));
  },

  /** The file a payout went into, if any. */
  async msgIdOf(q: Queryable, payoutId: string): Promise<string | null> {
    const { rows } = await q.query<{ msg_id: string }>('SELECT msg_id FROM bank_file_items WHERE payout_id = $1', [
      payoutId,
    ]);
    return rows[0]?.msg_id ?? null;
  },

  async list(q: Queryable, limit: number): Promise<BankFileSummary[]> {
    const { rows } = await q.query<FileRow>(
      `SELECT f.msg_id, f.created_at, f.payout_count, f.ctrl_sum, f.delivered_at,
              (SELECT json_object_agg(s.status, s.n) FROM (
                 SELECT p.status, count(*) AS n FROM bank_file_items i JOIN payouts p ON p.id = i.payout_id
                  WHERE i.msg_id = f.msg_id GROUP BY p.status) s) AS states
         FROM bank_files f ORDER BY f.created_at DESC, f.msg_id DESC LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({
      msgId: r.msg_id,
      createdAt: r.created_at,
      payoutCount: Number(r.payout_count),
      ctrlSum: BigInt(r.ctrl_sum),
      deliveredAt: r.delivered_at,
      states: Object.fromEntries(Object.entries(r.states ?? {}).map(([k, v]) => [k, Number(v)])),
    }));
  },

  async xmlOf(q: Queryable, msgId: string): Promise<string | null> {
    const { rows } = await q.query<{ xml: string }>('SELECT xml FROM bank_files WHERE msg_id = $1', [msgId]);
    return rows[0]?.xml ?? null;
  },

  async inboundKnown(q: Queryable, sha256: string): Promise<boolean> {
    const { rowCount } = await q.query('SELECT 1 FROM inbound_bank_files WHERE sha256 = $1', [sha256]);
    return rowCount > 0;
  },

  /** Records an inbound file; false when the same bytes were recorded first (by another instance). */
  async recordInbound(q: Queryable, file: Omit<InboundBankFile, 'receivedAt'>): Promise<boolean> {
    const { rowCount } = await q.query(
      `INSERT INTO inbound_bank_files (sha256, name, message_type, state, reason, entries, refused)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (sha256) DO NOTHING`,
      [file.sha256, file.name, file.messageType, file.state, file.reason, file.entries, file.refused],
    );
    return rowCount > 0;
  },

  async listInbound(q: Queryable, limit: number): Promise<InboundBankFile[]> {
    const { rows } = await q.query<{
      sha256: string;
      name: string;
      message_type: string | null;
      state: 'applied' | 'failed';
      reason: string | null;
      entries: number;
      refused: number;
      received_at: Date;
    }>('SELECT * FROM inbound_bank_files ORDER BY received_at DESC, sha256 LIMIT $1', [limit]);
    return rows.map((r) => ({
      sha256: r.sha256,
      name: r.name,
      messageType: r.message_type,
      state: r.state,
      reason: r.reason,
      entries: Number(r.entries),
      refused: Number(r.refused),
      receivedAt: r.received_at,
    }));
  },
};
