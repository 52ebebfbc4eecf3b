import type { Clock } from '../clock.ts';
import { parsePricingPlan } from '../domain/pricingPlan.ts';
import type { Database } from '../store/Database.ts';
import { PricingRepository, type StoredPlan } from '../store/repositories/PricingRepository.ts';

export type { StoredPlan };

export type PutPlanOutcome = { ok: true; plan: StoredPlan } | { ok: false; reason: 'merchant_not_found' };

/**
 * Operators' pricing plans (docs/operator/charging-merchants.md): one per merchant, replaced whole. The plan binds
 * the next transaction on every instance (the database prices each one as it writes it); what earlier transactions
 * were charged stays on them.
 */
export class PricingService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Validates the plan (throws InvalidPricing naming the field) and sets it. */
  async put(merchantId: string, body: unknown): Promise<PutPlanOutcome> {
    const plan = parsePricingPlan(body);
    const stored = await PricingRepository.put(this.db, merchantId, plan, new Date(this.clock()));
    return stored ? { ok: true, plan: stored } : { ok: false, reason: 'merchant_not_found' };
  }

  get(merchantId: string): Promise<StoredPlan | null> {
    return PricingRepository.find(this.db, merchantId);
  }
}
