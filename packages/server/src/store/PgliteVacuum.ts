import type { Database } from './Database.ts';

/**
 * The small tables every payout and webhook rewrites many times: queue rows updated on every claim and deleted when
 * done, balances and allowance counters. Their dead row versions pile up fastest: vacuumed at every pass.
 */
const QUEUE_TABLES = ['jobs', 'webhook_deliveries', 'wallets', 'merchant_usage'];
/**
 * The large tables, vacuumed and analyzed at every FULL_EVERY-th pass: payouts and collections, whose rows change
 * status a few times each, and webhook attempts, append-only but for retention's removals (jobs/Retention.ts), whose
 * space a vacuum makes reusable.
 */
const LARGE_TABLES = ['payouts', 'collections', 'webhook_attempts'];
const FULL_EVERY = 6;

/** Default interval: a pass costs ~0.1–0.3 s of PGlite's one connection under load, so a few percent at most. */
export const PGLITE_VACUUM_INTERVAL_MS = 10_000;

/**
 * PGlite runs PostgreSQL in single-user mode, which has no autovacuum: without this, dead row versions of the
 * queue tables pile up and every claim wades through them (measured: a backlog of 10,000 sandbox payouts settled at
 * 60/s at first and 6/s after five minutes; with a pass every 10 s, steadily). Each pass vacuums the queue tables,
 * every sixth also the large ones, with ANALYZE; a pass never overlaps the previous one, and a failed pass is
 * retried at the next interval.
 */
export class PgliteVacuum {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private passes = 0;

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
    if (this.running) return this.running;
    // ANALYZE reads a sample of every table it is given: worth it once a minute, not every ten seconds.
    const full = this.passes++ % FULL_EVERY === 0;
    const sql = full
      ? `VACUUM (ANALYZE) ${[...QUEUE_TABLES, ...LARGE_TABLES].join(', ')}`
      : `VACUUM ${QUEUE_TABLES.join(', ')}`;
    this.running = this.db
      .exec(sql)
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
