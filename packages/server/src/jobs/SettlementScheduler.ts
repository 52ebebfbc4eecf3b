import type { SettlementService } from '../services/SettlementService.ts';
import { PeriodicPass } from './PeriodicPass.ts';

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
  private readonly passes: PeriodicPass<void>;

  constructor(settlements: SettlementService, scanMs: number, log: SchedulerLog) {
    this.passes = new PeriodicPass(
      scanMs,
      async () => {
        const result = await settlements.runDue();
        if (result.settlements.length > 0) log.info({ settlements: result.settlements.length }, 'settlements opened');
      },
      (err) => log.warn({ err }, 'settlement pass failed; tried again at the next one'),
    );
  }

  start(): void {
    this.passes.start();
  }

  /** One pass now; never overlaps itself. */
  async run(): Promise<void> {
    await this.passes.run();
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }
}
