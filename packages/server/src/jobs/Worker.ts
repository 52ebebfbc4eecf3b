import type { Logger } from 'pino';
import type { Database } from '../store/Database.ts';
import { JobRepository, type Job, type JobKind } from '../store/repositories/JobRepository.ts';
import { WebhookRepository } from '../store/repositories/WebhookRepository.ts';
import type { WebhookDispatcher } from './WebhookDispatcher.ts';

/** Runs one job; resolves once its effect is recorded (with the deletion of the job), rejects to retry it later. */
export type JobFunction = (job: Job) => Promise<void>;

/**
 * Runs the jobs of one claim together (their reads, writes and connector calls batched): one promise per job, in
 * order, each settled like a `JobFunction`'s, so that one job's failure is retried alone.
 */
export interface BatchJobHandler {
  runBatch(jobs: readonly Job[]): Promise<void>[];
}

export type JobHandler = JobFunction | BatchJobHandler;

export interface WorkerOptions {
  pollMs: number;
  /** Deliveries in flight at once: a receiver that hangs holds one slot until its timeout, never the queue. */
  maxDeliveries: number;
  maxJobs: number;
  /**
   * Jobs of the kinds whose handler is a `BatchJobHandler` in flight at once (claimed apart from the others, which
   * `maxJobs` bounds); default 512. Their handler bounds its own calls out (PayoutStepper: the connector's).
   */
  maxBatchJobs?: number;
  webhookTimeoutMs: number;
  /** How long a claim is reserved (deliveries: plus the webhook timeout); default 60 s. */
  leaseMs?: number;
}

const DEFAULT_LEASE_MS = 60_000;
const DEFAULT_MAX_BATCH_JOBS = 512;

/**
 * The background worker of each server process: claims due jobs and webhook deliveries from the database
 * (FOR UPDATE SKIP LOCKED, so instances share the work) and runs them. Nothing lives only in memory: a
 * crash leaves the rows, and their leases expire so that any instance picks them up again.
 *
 * A claim is one statement for all the rows it takes; a kind whose handler is a `BatchJobHandler` gets the claim's
 * jobs of that kind together, and deliveries are read and recorded together (`WebhookDispatcher.deliverMany`), so
 * that the statements per job shrink with the backlog. The slots, the backoff and the leases stay per job and
 * per delivery.
 */
export class Worker {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private readonly jobsInFlight = new Set<Promise<void>>();
  private readonly batchJobsInFlight = new Set<Promise<void>>();
  private readonly deliveriesInFlight = new Set<Promise<void>>();
  private ticking = false;
  /** The pass under way, if any: `stop` waits for it, since it may be claiming work the moment the stop comes. */
  private pass: Promise<void> | null = null;
  /** While `stop` waits: the pass under way claims nothing more (what it claimed still runs and is waited for). */
  private stopping = false;
  /**
   * The last pass claimed as much as it had room for: more is probably due. Then a pass starts as soon as half the
   * slots are free again, instead of after the poll interval, so that a backlog drains at the speed of the work.
   */
  private readonly backlog = { jobs: false, batchJobs: false, deliveries: false };
  /**
   * Failed jobs whose "retry later" could not be written (the database was down): written again at each pass
   * until it works, so that the job runs again soon after the database returns instead of when its lease ends.
   */
  private readonly unreleased = new Map<bigint, { job: Job; delayMs: number; error: string }>();

  constructor(
    private readonly db: Database,
    private readonly handlers: Partial<Record<JobKind, JobHandler>>,
    private readonly dispatcher: WebhookDispatcher,
    private readonly logger: Logger,
    private readonly options: WorkerOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /**
   * Stops claiming and waits for the pass under way and for what is in flight (deliveries end by their own
   * timeout), so that the caller may close the database afterwards: a pass still claiming when the pool closed
   * logged "worker pass failed: Cannot use a pool after calling end on the pool" at every few shutdowns.
   */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stopping = true;
    try {
      await this.pass;
    } finally {
      // A test may still step the worker by hand after stopping its timer.
      this.stopping = false;
    }
    await Promise.allSettled([...this.jobsInFlight, ...this.batchJobsInFlight, ...this.deliveriesInFlight]);
  }

  /** One pass: claim and start what is due. Exposed for tests that step the worker by hand. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    this.pass = this.runPass().finally(() => {
      this.ticking = false;
      this.pass = null;
    });
    await this.pass;
  }

  private async runPass(): Promise<void> {
    try {
      await this.releaseFailed();
      if (!this.stopping) await this.claimJobs();
      if (!this.stopping) await this.claimDeliveries();
    } catch (err) {
      // Back to the poll interval: never a tight loop against a database that fails.
      this.backlog.jobs = this.backlog.batchJobs = this.backlog.deliveries = false;
      this.logger.error({ err }, 'worker pass failed');
    }
  }

  private schedule(delayMs: number) {
    if (!this.running) return;
    this.timer = setTimeout(async () => {
      this.timer = null;
      await this.tick();
      if (this.timer === null) this.schedule(this.moreToClaim() ? 0 : this.options.pollMs);
    }, delayMs);
    this.timer.unref?.();
  }

  /** A kind whose last claim was full has at least half its slots free again. */
  private moreToClaim(): boolean {
    return (
      (this.backlog.jobs && this.jobsInFlight.size + this.unreleased.size <= this.options.maxJobs / 2) ||
      (this.backlog.batchJobs && this.batchJobsInFlight.size <= this.maxBatchJobs / 2) ||
      (this.backlog.deliveries && this.deliveriesInFlight.size <= this.options.maxDeliveries / 2)
    );
  }

  /** Work finished while a backlog waits: claim more now rather than at the next poll. */
  private kick() {
    if (!this.running || this.ticking || this.timer === null || !this.moreToClaim()) return;
    clearTimeout(this.timer);
    this.schedule(0);
  }

  private async releaseFailed() {
    for (const [id, { job, delayMs, error }] of this.unreleased) {
      await JobRepository.retryLater(this.db, job, delayMs, error);
      this.unreleased.delete(id);
    }
  }

  private get maxBatchJobs(): number {
    return this.options.maxBatchJobs ?? DEFAULT_MAX_BATCH_JOBS;
  }

  /** The kinds whose handler runs a claim's jobs together. */
  private batchKinds(): JobKind[] {
    return (Object.keys(this.handlers) as JobKind[]).filter((kind) => {
      const handler = this.handlers[kind];
      return handler !== undefined && typeof handler !== 'function';
    });
  }

  private async claimJobs() {
    const lease = this.options.leaseMs ?? DEFAULT_LEASE_MS;
    const batchKinds = this.batchKinds();
    const room = this.options.maxJobs - this.jobsInFlight.size - this.unreleased.size;
    if (room > 0) {
      const jobs = await JobRepository.claim(
        this.db,
        room,
        lease,
        batchKinds.length > 0 ? { kinds: batchKinds, except: true } : undefined,
      );
      this.backlog.jobs = jobs.length === room;
      for (const job of jobs) {
        const handler = this.handlers[job.kind];
        this.track(
          this.jobsInFlight,
          this.runJob(job, () => {
            if (typeof handler !== 'function') throw new Error(`no handler for job kind ${job.kind}`);
            return handler(job);
          }),
        );
      }
    }
    const batchRoom = this.maxBatchJobs - this.batchJobsInFlight.size;
    if (batchKinds.length === 0 || batchRoom <= 0) return;
    const jobs = await JobRepository.claim(this.db, batchRoom, lease, { kinds: batchKinds });
    this.backlog.batchJobs = jobs.length === batchRoom;
    for (const kind of batchKinds) {
      const group = jobs.filter((j) => j.kind === kind);
      if (group.length === 0) continue;
      // One batch per kind and claim: the handler reads and records the jobs together.
      const handler = this.handlers[kind] as BatchJobHandler;
      let runs: Promise<void>[];
      try {
        runs = handler.runBatch(group);
      } catch (err) {
        runs = group.map(() => Promise.reject(err as Error));
      }
      group.forEach((job, i) =>
        this.track(
          this.batchJobsInFlight,
          this.runJob(job, () => runs[i] as Promise<void>),
        ),
      );
    }
  }

  private async claimDeliveries() {
    const room = this.options.maxDeliveries - this.deliveriesInFlight.size;
    if (room <= 0) return;
    const lease = this.options.webhookTimeoutMs + (this.options.leaseMs ?? DEFAULT_LEASE_MS);
    const deliveries = await WebhookRepository.claim(this.db, room, lease);
    this.backlog.deliveries = deliveries.length === room;
    // Sent each on its own (a receiver that hangs holds only its slot); read and recorded together.
    const sends = this.dispatcher.deliverMany(deliveries);
    deliveries.forEach((d, i) => {
      this.track(
        this.deliveriesInFlight,
        (sends[i] as Promise<void>).catch((err) => this.logger.error({ err, delivery: d.id }, 'delivery failed')),
      );
    });
  }

  private track(set: Set<Promise<void>>, promise: Promise<void>) {
    set.add(promise);
    void promise.finally(() => {
      set.delete(promise);
      this.kick();
    });
  }

  private async runJob(job: Job, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (err) {
      // Back off exponentially (1 s, 2 s, 4 s … capped at 5 min) and try again: a step is never dropped.
      const delay = Math.min(1000 * 2 ** Math.min(job.attempts - 1, 16), 300_000);
      this.logger.warn({ err, job: job.kind, subject: job.subjectId, attempt: job.attempts }, 'job failed; retrying');
      const message = (err as Error).message;
      const kept = await JobRepository.retryLater(this.db, job, delay, message).catch(() => {
        // The database is unreachable: remember the job and re-queue it at the first pass that reaches it.
        this.unreleased.set(job.id, { job, delayMs: delay, error: message });
        return true;
      });
      // Lost lease: another claim, a reschedule or a completion owns the job now; leave it to them.
      if (!kept) this.logger.warn({ job: job.kind, subject: job.subjectId }, 'job retry not recorded: lease lost');
    }
  }
}
