import type { FeeFigures, FeeReportGroup } from '../../domain/feeReport.ts';
import type { Queryable } from '../Database.ts';

export type PlatformWalletKind = 'fees' | 'gst' | 'recovery' | 'suspense';

export interface PlatformWallet {
  kind: PlatformWalletKind;
  walletId: string;
  /** Paise. */
  balance: bigint;
}

/** The platform's fee-income and GST-payable wallets (migration 029: fixed ids, no merchant). */
const FEES_WALLET = 'PW_FEES';
const GST_WALLET = 'PW_GST';

/**
 * What one group of the report is keyed by. `day`: whole IST days since the window's start ($1), the day's length in
 * seconds being $3 (both from domain/istPeriod.ts), so SQL never works out the offset itself. `product`: the payout's
 * payment mode, UPI_COLLECTION or DEPOSIT.
 */
const GROUP_KEY: Record<FeeReportGroup, string> = {
  day: 'floor((extract(epoch FROM e.created_at) - extract(epoch FROM $1::timestamptz)) / $3::numeric)::int4',
  merchant: 'coalesce(p.merchant_id, c.merchant_id, d.merchant_id)',
  product:
    "CASE WHEN e.payout_id IS NOT NULL THEN p.payment_mode WHEN e.deposit_id IS NOT NULL THEN 'DEPOSIT' ELSE 'UPI_COLLECTION' END",
};

/** The platform's own books: its wallets, and the fee and GST entries on them read as a report. */
export const PlatformRepository = {
  /**
   * The platform's wallets with their balances: fees, gst, recovery, suspense (a platform wallet's balance is its
   * row's plus its stripes', migration 040).
   */
  async wallets(q: Queryable): Promise<PlatformWallet[]> {
    const { rows } = await q.query<{ platform_kind: PlatformWalletKind; id: string; balance: bigint }>(
      `SELECT platform_kind, id, balance FROM platform_wallet_balances
        ORDER BY array_position(ARRAY['fees', 'gst', 'recovery', 'suspense'], platform_kind)`,
    );
    return rows.map((r) => ({ kind: r.platform_kind, walletId: r.id, balance: BigInt(r.balance) }));
  },

  /**
   * Fees and GST on the platform's side of each charge and refund written in [start, end), summed per group: the
   * fees wallet's entries are the fees, the GST wallet's the tax (a refund is negative there, so both are net). The
   * count is the charges (`payout_fee`, `collection_fee`, `deposit_fee`) less the refunds (`payout_fee_refund`), each
   * on the day its entry was written. One statement; the payouts, collections and deposits are joined only when the
   * group or the merchant filter needs them.
   */
  async feeSums(
    q: Queryable,
    window: { start: Date; end: Date; dayMs: number },
    group: FeeReportGroup,
    merchantId?: string,
  ): Promise<(FeeFigures & { key: string | number })[]> {
    const params: unknown[] = [window.start, window.end];
    if (group === 'day') params.push(window.dayMs / 1000);
    const joined = group !== 'day' || merchantId !== undefined;
    let merchantFilter = '';
    if (merchantId !== undefined) {
      params.push(merchantId);
      merchantFilter = `AND coalesce(p.merchant_id, c.merchant_id, d.merchant_id) = $${params.length}`;
    }
    const { rows } = await q.query<{ key: string | number; count: bigint; fees: bigint; tax: bigint }>(
      `SELECT ${GROUP_KEY[group]} AS key,
              (count(*) FILTER (WHERE e.wallet_id = '${FEES_WALLET}'
                                  AND e.kind IN ('payout_fee', 'collection_fee', 'deposit_fee'))
               - count(*) FILTER (WHERE e.wallet_id = '${FEES_WALLET}' AND e.kind = 'payout_fee_refund'))::int8 AS count,
              coalesce(sum(e.amount) FILTER (WHERE e.wallet_id = '${FEES_WALLET}'), 0)::int8 AS fees,
              coalesce(sum(e.amount) FILTER (WHERE e.wallet_id = '${GST_WALLET}'), 0)::int8 AS tax
         FROM ledger_entries e
         ${
           joined
             ? `LEFT JOIN payouts p ON p.id = e.payout_id LEFT JOIN collections c ON c.id = e.collection_id
                LEFT JOIN deposits d ON d.id = e.deposit_id`
             : ''
         }
        WHERE e.wallet_id IN ('${FEES_WALLET}', '${GST_WALLET}')
          AND e.kind IN ('payout_fee', 'payout_fee_gst', 'payout_fee_refund', 'payout_fee_gst_refund',
                         'collection_fee', 'collection_fee_gst', 'deposit_fee', 'deposit_fee_gst')
          AND e.created_at >= $1 AND e.created_at < $2 ${merchantFilter}
        GROUP BY 1
        ORDER BY 1`,
      params,
    );
    return rows.map((r) => ({ key: r.key, count: BigInt(r.count), fees: BigInt(r.fees), tax: BigInt(r.tax) }));
  },
};
