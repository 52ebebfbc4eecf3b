import type { Database } from './Database.ts';

/**
 * The tables every payout, collection and webhook rewrites: queue rows updated on every claim and deleted when done,
 * statuses, balances and allowance counters. Their dead row versions pile up fastest.
 */
const CHURNING_TABLES = ['jobs', 'webhook_deliveries', 'wallets', 'merchant_usage', 'payouts', 'collections'];

/** Default interval: a pass costs ~0.1–0.3 s of PGlite's one connection under load, so a few percent at most. */
export const PGLITE_VACUUM_INTERVAL_MS = 10_000;

/**
 * PGlite runs PostgreSQL in single-user mode, which has no autovacuum: without this, dead row versions of the
 * queue tables pile up and every claim wades through them (measured: a backlog of 10,000 sandbox payouts settled at
 * 60/s at first and 6/s after five minutes; with a pass every 10 s, steadily). Each pass vacuums and analyzes the
 * churning tables; a pass never overlaps the previous one, and a failed pass is retried at the next interval.
 */
export class PgliteVacuum {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly db: Database,
    private readonly onError: (err: unknown) => void,
    private readonly intervalMs = PGLITE_VACUUM_INTERVAL_MS,
  ) {}

  start(): void {
    if (this.db.engine !== 'pglite' || this.timer) return;
    this.timer = setInterval(() => void this.pass(), this.intervalMs);
    this.timer.unref?.();
  }

  /** One pass now (also what the timer runs); resolves when it has ended. */
  pass(): Promise<void> {
    this.running ??= this.db
      .exec(`VACUUM (ANALYZE) ${CHURNING_TABLES.join(', ')}`)
      .catch(this.onError)
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
