import { PAYOUT_STATUSES } from '@payrail/protocol';
import { istHourStartOf } from '../domain/istPeriod.ts';
import type { Database } from '../store/Database.ts';
import { StatsRepository } from '../store/repositories/StatsRepository.ts';
import type { Clock } from '../clock.ts';
import type { MerchantScope } from './MerchantScope.ts';

const HOUR_MS = 3_600_000;

export interface Stats {
  windowStart: Date;
  windowEnd: Date;
  /** 24 hourly buckets, oldest first, with a count per payout status (every status present, 0 when none). */
  hours: { hour: Date; counts: Record<string, number> }[];
  totals: Record<string, number>;
  /** SUCCESS ÷ (SUCCESS + FAILED + REFUNDED) of the window's payouts; null when none has finished. */
  successRate: number | null;
  webhookBacklog: { pending: number; failed: number };
  moneyOnHold: { amount: bigint; count: number };
}

/** The console overview's numbers. */
export class StatsService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * The 24 hours up to the end of the current hour (`now`: the clock's time, unless given), of the merchant of
   * `scope`, or of every merchant. Hours are IST hours (hh:00 IST, which is hh:30 UTC), so that the chart's bars
   * fall on the hours its reader's clock shows.
   */
  async stats(scope?: MerchantScope, now = new Date(this.clock())): Promise<Stats> {
    const merchantId = scope?.merchantId;
    const windowEnd = new Date(istHourStartOf(now).getTime() + HOUR_MS);
    const windowStart = new Date(windowEnd.getTime() - 24 * HOUR_MS);
    const [rows, webhookBacklog, moneyOnHold] = await Promise.all([
      StatsRepository.payoutsPerHour(this.db, windowStart, merchantId),
      StatsRepository.webhookBacklog(this.db, merchantId),
      StatsRepository.moneyOnHold(this.db, merchantId),
    ]);
    const zero = () => Object.fromEntries(PAYOUT_STATUSES.map((s) => [s, 0])) as Record<string, number>;
    const hours = Array.from({ length: 24 }, (_, i) => ({
      hour: new Date(windowStart.getTime() + i * HOUR_MS),
      counts: zero(),
    }));
    const totals = zero();
    for (const r of rows) {
      const index = Math.floor((r.hour.getTime() - windowStart.getTime()) / HOUR_MS);
      const bucket = hours[index];
      if (bucket) bucket.counts[r.status] = (bucket.counts[r.status] ?? 0) + r.count;
      totals[r.status] = (totals[r.status] ?? 0) + r.count;
    }
    const succeeded = totals.SUCCESS ?? 0;
    const finished = succeeded + (totals.FAILED ?? 0) + (totals.REFUNDED ?? 0);
    return {
      windowStart,
      windowEnd,
      hours,
      totals,
      successRate: finished === 0 ? null : succeeded / finished,
      webhookBacklog,
      moneyOnHold,
    };
  }
}
