import type { Database } from '../store/Database.ts';
import { LedgerClosingRepository } from '../store/repositories/LedgerClosingRepository.ts';
import { PeriodicPass } from './PeriodicPass.ts';

export interface LedgerClosingsLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface LedgerClosingsOptions {
  /** How often a pass runs; default every fifteen minutes (a day becomes final once, ten minutes after it ends). */
  scanMs?: number;
  /** Days closed per transaction; default 31. */
  daysPerStep?: number;
  /** Transactions per pass at most, so that the first pass over years of history shares the database; default 24. */
  maxSteps?: number;
}

/**
 * The worker's closing of ledger days (migration 044): every `scanMs`, on each instance running the worker, the days
 * that have become final are closed, each wallet's balance at the end of each day it moved written once, so that a
 * statement's opening balance reads a closing and at most two days of entries instead of the wallet's history. The
 * database decides which days are final (its clock and its open transactions), so instances running it at once
 * close each day once, one after the other. A pass on a database with history closes `daysPerStep` days per
 * transaction until it is up to date or `maxSteps` ran (the next pass goes on). A failed pass is logged and tried
 * again at the next; until then statements only read more entries, never a wrong balance.
 */
export class LedgerClosings {
  private readonly passes: PeriodicPass<number>;
  private readonly daysPerStep: number;
  private readonly maxSteps: number;

  constructor(
    private readonly db: Database,
    private readonly log: LedgerClosingsLog,
    options: LedgerClosingsOptions = {},
  ) {
    this.daysPerStep = options.daysPerStep ?? 31;
    this.maxSteps = options.maxSteps ?? 24;
    this.passes = new PeriodicPass(
      options.scanMs ?? 900_000,
      () => this.pass(),
      (err) => log.warn({ err }, 'ledger closing pass failed; tried again at the next one'),
    );
  }

  start(): void {
    this.passes.start();
    // The first pass at start, not a period later: a database migrated with history gets its closings now.
    void this.passes.run();
  }

  /** One pass now: the days it closed (null: it failed); never overlaps itself. */
  run(): Promise<number | null> {
    return this.passes.run();
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }

  private async pass(): Promise<number> {
    let closed = 0;
    for (let i = 0; i < this.maxSteps && !this.passes.stopped; i++) {
      const days = await this.db.transaction((tx) => LedgerClosingRepository.closeDays(tx, this.daysPerStep));
      closed += days;
      if (days < this.daysPerStep) break;
    }
    if (closed > 0) this.log.info({ days: closed }, 'ledger days closed');
    return closed;
  }
}
