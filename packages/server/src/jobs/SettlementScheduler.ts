import type { SettlementService } from '../services/SettlementService.ts';

export interface SchedulerLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Runs the settlement pass (SettlementService.runDue: the daily runs that are due, then instant settlements) every
 * PAYRAIL_SETTLEMENT_SCAN_MS on each instance. Whether a run is due is decided by the injected clock and the account
 * rows (a day's run is claimed on the row, so two instances never settle a merchant twice); this timer only says how
 * often to ask. A failed pass is logged and tried again at the next one.
 */
export class SettlementScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly settlements: SettlementService,
    private readonly scanMs: number,
    private readonly log: SchedulerLog,
  ) {}

  start(): void {
    if (this.timer || this.stopped) return;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.run().finally(() => this.schedule());
    }, this.scanMs);
    this.timer.unref?.();
  }

  /** One pass now; never overlaps itself. */
  run(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.settlements
      .runDue()
      .then((result) => {
        if (result.settlements.length > 0) {
          this.log.info({ settlements: result.settlements.length }, 'settlements opened');
        }
      })
      .catch((err: unknown) => this.log.warn({ err }, 'settlement pass failed; tried again at the next one'))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
