import type { Clock } from '../clock.ts';
import type { Database } from '../store/Database.ts';
import { RetentionRepository } from '../store/repositories/RetentionRepository.ts';
import { PeriodicPass } from './PeriodicPass.ts';

export interface RetentionLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface RetentionOptions {
  /** Days a delivered webhook delivery is kept after its delivery (PAYRAIL_RETENTION_DAYS); null: kept forever. */
  days: number | null;
  /** How often a pass runs; default every five minutes. */
  scanMs?: number;
  /** Deliveries removed per transaction; default 1,000. */
  batch?: number;
  /** Batches per pass at most, so that a first pass over years of deliveries shares the database; default 100. */
  maxBatches?: number;
  /** Told what each batch removed, once it is committed (the metrics' counter). */
  onRemoved?: (removed: { deliveries: number; attempts: number }) => void;
}

const DAY_MS = 86_400_000;

/** What one pass removed. */
export interface RetentionPass {
  deliveries: number;
  attempts: number;
  /** The cut-off: deliveries delivered before it went. */
  before: Date;
}

/**
 * The worker's retention pass (docs/operator/operations.md, "Retention"): every `scanMs`, on each instance running
 * the worker, delivered webhook deliveries older than the window are removed with their attempts, `batch` per
 * transaction (three short statements), until a batch finds fewer than `batch` or `maxBatches` ran
 * (the next pass goes on). The window is measured on the injected clock. Instances running it at once share the rows
 * (SKIP LOCKED), never removing one twice or waiting for each other. A failed pass is logged and tried again at the
 * next.
 */
export class Retention {
  private readonly passes: PeriodicPass<RetentionPass | null>;
  private readonly batch: number;
  private readonly maxBatches: number;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly log: RetentionLog,
    private readonly options: RetentionOptions,
  ) {
    this.batch = options.batch ?? 1_000;
    this.maxBatches = options.maxBatches ?? 100;
    this.passes = new PeriodicPass(
      options.scanMs ?? 300_000,
      () => this.pass(),
      (err) => log.warn({ err }, 'retention pass failed; tried again at the next one'),
    );
  }

  start(): void {
    if (this.options.days !== null) this.passes.start();
  }

  /** One pass now (null: retention is off, or the pass failed); never overlaps itself. */
  run(): Promise<RetentionPass | null> {
    return this.passes.run();
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }

  private async pass(): Promise<RetentionPass | null> {
    if (this.options.days === null) return null;
    const before = new Date(this.clock() - this.options.days * DAY_MS);
    const removed: RetentionPass = { deliveries: 0, attempts: 0, before };
    for (let i = 0; i < this.maxBatches && !this.passes.stopped; i++) {
      const batch = await this.db.transaction((tx) =>
        RetentionRepository.removeDeliveredBefore(tx, before, this.batch),
      );
      removed.deliveries += batch.deliveries;
      removed.attempts += batch.attempts;
      if (batch.deliveries > 0) this.options.onRemoved?.(batch);
      if (batch.deliveries < this.batch) break;
    }
    if (removed.deliveries > 0) {
      this.log.info(
        { deliveries: removed.deliveries, attempts: removed.attempts, before: before.toISOString() },
        'retention removed delivered webhook deliveries',
      );
    }
    return removed;
  }
}
