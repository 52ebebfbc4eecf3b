import { formatPaise } from '@payrail/protocol';
import type { Stats } from '../../services/StatsService.ts';

/** The overview's numbers (the operator's and the merchant console's): amounts as decimal text. */
export const statsView = (s: Stats) => ({
  window_start: s.windowStart.toISOString(),
  window_end: s.windowEnd.toISOString(),
  payouts_per_hour: s.hours.map((h) => ({ hour: h.hour.toISOString(), ...h.counts })),
  payouts_by_status: s.totals,
  success_rate: s.successRate,
  webhook_backlog: s.webhookBacklog,
  money_on_hold: formatPaise(s.moneyOnHold.amount),
  payouts_on_hold: s.moneyOnHold.count,
});
