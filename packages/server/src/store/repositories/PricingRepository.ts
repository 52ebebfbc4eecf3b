import { rulesFromStored, storedRules, type PricingPlan } from '../../domain/pricingPlan.ts';
import type { Queryable } from '../Database.ts';
import { isForeignKeyViolation } from '../dbErrors.ts';

/** A merchant's pricing plan as kept (migration 029, `pricing_plans`). */
export interface StoredPlan extends PricingPlan {
  merchantId: string;
  createdAt: Date;
  updatedAt: Date;
}

interface PlanRow {
  merchant_id: string;
  name: string;
  rules: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const toPlan = (r: PlanRow): StoredPlan => ({
  merchantId: r.merchant_id,
  name: r.name,
  rules: rulesFromStored(r.rules),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * Pricing plans, one per merchant. The fee itself is computed by the database where it is charged (functions
 * `pricing_fee` and `pricing_gst`); `quote` asks the same functions for what a transaction would cost.
 */
export const PricingRepository = {
  /**
   * Sets the merchant's plan (replacing the one before); the next transaction pays by it. Null when there is no such
   * merchant.
   */
  async put(q: Queryable, merchantId: string, plan: PricingPlan, at: Date): Promise<StoredPlan | null> {
    try {
      const { rows } = await q.query<PlanRow>(
        `INSERT INTO pricing_plans (merchant_id, name, rules, created_at, updated_at)
         VALUES ($1, $2, $3::jsonb, $4, $4)
         ON CONFLICT (merchant_id) DO UPDATE SET name = EXCLUDED.name, rules = EXCLUDED.rules, updated_at = $4
         RETURNING *`,
        [merchantId, plan.name, JSON.stringify(storedRules(plan)), at],
      );
      return toPlan(rows[0] as PlanRow);
    } catch (err) {
      if (isForeignKeyViolation(err)) return null;
      throw err;
    }
  },

  async find(q: Queryable, merchantId: string): Promise<StoredPlan | null> {
    const { rows } = await q.query<PlanRow>('SELECT * FROM pricing_plans WHERE merchant_id = $1', [merchantId]);
    return rows[0] ? toPlan(rows[0]) : null;
  },

  async exists(q: Queryable, merchantId: string): Promise<boolean> {
    const { rows } = await q.query('SELECT 1 FROM pricing_plans WHERE merchant_id = $1', [merchantId]);
    return rows.length > 0;
  },

  /** The fee and GST of transactions of `product` for these amounts under the merchant's plan (0 without one). */
  async quote(
    q: Queryable,
    merchantId: string,
    product: string,
    amounts: readonly bigint[],
    gstRateBp: number,
  ): Promise<{ fee: bigint; tax: bigint }[]> {
    if (amounts.length === 0) return [];
    const { rows } = await q.query<{ fee: bigint; tax: bigint }>(
      `SELECT f.fee, pricing_gst(f.fee, $4) AS tax
         FROM unnest($3::int8[]) WITH ORDINALITY AS u (amount, ord)
         CROSS JOIN LATERAL (SELECT coalesce((SELECT pricing_fee(p.rules, $2, u.amount) FROM pricing_plans p
                                               WHERE p.merchant_id = $1), 0) AS fee) f
        ORDER BY u.ord`,
      [merchantId, product, amounts.map(String), gstRateBp],
    );
    return rows.map((r) => ({ fee: BigInt(r.fee), tax: BigInt(r.tax) }));
  },
};
