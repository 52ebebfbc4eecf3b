import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../clock.ts';
import { DatabaseUnavailable } from '../domain/DatabaseUnavailable.ts';
import type { Payout } from '../domain/Payout.ts';
import { readOutcome, readSubmitAnswer } from '../domain/railAnswers.ts';
import { toTransfer, type BankConnector } from '../rails/BankConnector.ts';
import type { ConnectorRegistry } from '../rails/ConnectorRegistry.ts';
import { SandboxConnector } from '../rails/SandboxConnector.ts';
import { checkReport, refuseUnmatched, type ReportedOutcome } from '../services/BankNotifications.ts';
import type { ConnectorHealth } from '../services/ConnectorHealth.ts';
import { KeyedQueue } from '../services/KeyedQueue.ts';
import { LockPlan } from '../services/LockOrder.ts';
import type { BulkMove } from '../services/PayoutBulkMoves.ts';
import type { PayoutLifecycle } from '../services/PayoutLifecycle.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { JobRepository, type Job } from '../store/repositories/JobRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import { PayoutStepRepository } from '../store/repositories/PayoutStepRepository.ts';
import { GroupCommit, type ItemOutcome } from '../services/GroupCommit.ts';

/**
 * How many submissions of a transfer may lose their answer. More than one submission without a recorded answer
 * only when the process died, or the database failed, between the call and the record; the same idempotency key
 * (the payout id) lets the bank recognise the repeat. (A temporary refusal is a recorded answer: it does not count.)
 */
export const MAX_SUBMISSIONS = 3;

/** The most answers recorded in one transaction. */
const MAX_RECORD_BATCH = 256;
/**
 * Calls in flight at once to one connector that is not in-process (a bank's API over the network): the worker's job
 * slots bounded them before steps were batched; the sandbox answers in-process and is asked for a whole batch.
 */
export const MAX_CALLS_PER_CONNECTOR = 32;

/** Calls the connector; what it throws is an answer too (kept as the Error). */
async function ask(call: () => Promise<unknown>): Promise<{ answer: unknown; threw: boolean }> {
  try {
    return { answer: await call(), threw: false };
  } catch (err) {
    return { answer: err instanceof Error ? err : new Error(String(err)), threw: true };
  }
}

/**
 * The effect of one step, recorded in the transaction that deletes its job (with the effects of the other steps
 * that are ready at the same time). Each is applied only if the job is still this claim's, and only to the payout
 * as it is then (locked), never to the one the connector was asked about if it has moved since.
 */
type StepRecord =
  /** Nothing to change: the job is done (the payout is final, gone, or not this step's any more). */
  | { kind: 'done'; job: Job }
  /** The payout's next step in its status, whatever it is by then: FAILED is refunded. */
  | { kind: 'settle'; job: Job; payoutId: string }
  /** The connector's answer to the submission of an INITIATED payout. */
  | { kind: 'submit'; job: Job; payout: Payout; answer: unknown; retryDelayMs: number }
  /** The connector's answer to a poll of a PROCESSING or PENDING payout. */
  | { kind: 'poll'; job: Job; payout: Payout; answer: unknown };

/** A payout still INITIATED: the steps of a submission apply to it only. */
const initiated = (p: Payout) => p.status === 'INITIATED';

const payoutIdOf = (r: StepRecord): string | null =>
  r.kind === 'done' ? null : r.kind === 'settle' ? r.payoutId : r.payout.id;

/**
 * Runs `payout.advance` jobs: submits an INITIATED payout (once), polls a PROCESSING or PENDING one, refunds a
 * FAILED one. A claimed batch is read in one statement and its submissions recorded in one; each connector is asked
 * outside any transaction (one call per payout, all of the batch at once); the answers are then recorded together,
 * through the lifecycle's set-based moves, in one transaction that also deletes their jobs (group commit: the
 * answers ready at the same time share it). A step whose job another worker took, or whose payout moved meanwhile,
 * changes nothing. When that transaction fails for one payout (a transition the database refuses), nothing of it
 * stays and each answer is recorded again in a transaction of its own: one refusal never costs the others theirs.
 */
export class PayoutStepper {
  private readonly records: GroupCommit<StepRecord, void>;
  /** Calls in flight per connector (by name): at most MAX_CALLS_PER_CONNECTOR, the others wait in order. */
  private readonly calls = new KeyedQueue(MAX_CALLS_PER_CONNECTOR);

  constructor(
    private readonly db: Database,
    private readonly connectors: ConnectorRegistry,
    private readonly lifecycle: PayoutLifecycle,
    /** The time now (the composition root's clock). */
    private readonly clock: Clock,
    /** Where each connector's answers are counted for the operator's view (optional in tests). */
    private readonly health?: ConnectorHealth,
    /**
     * How long an answer the connector gave is kept in memory while the database cannot record it (a failover):
     * within the job's lease, so that no other worker runs the step and submits the payout a second time.
     */
    private readonly answerHoldMs = 20_000,
  ) {
    this.records = new GroupCommit((items) => this.recordAll(items), MAX_RECORD_BATCH);
  }

  /** One job: a batch of one. */
  run(job: Job): Promise<void> {
    return this.runBatch([job])[0] as Promise<void>;
  }

  /**
   * Runs claimed jobs together; one promise per job, in order, settled when that job's effect is recorded (or
   * rejected with why it was not: the worker then retries that job alone, with its backoff).
   */
  runBatch(jobs: readonly Job[]): Promise<void>[] {
    const prepared = this.prepare(jobs);
    return jobs.map((job) => prepared.then((p) => this.step(job, p)));
  }

  /**
   * Reads the batch's payouts in one statement, and records the submission of those due for one in one more
   * (committed before any connector is called, so that a step run again never submits again: `submit` is called
   * once per payout, except after a crash that lost its answer).
   */
  private async prepare(jobs: readonly Job[]) {
    const payouts = await PayoutStepRepository.findMany(
      this.db,
      jobs.map((j) => j.subjectId),
    );
    const submitting = [...payouts.values()].filter((p) => {
      const rail = p.status === 'INITIATED' ? this.connectors.get(p.rail) : null;
      return rail !== null && rail !== undefined && rail.submitDelayMs !== null;
    });
    const claimed = await PayoutStepRepository.claimSubmissions(
      this.db,
      submitting.map((p) => p.id),
    );
    return { payouts, claimed };
  }

  private async step(
    job: Job,
    { payouts, claimed }: { payouts: Map<string, Payout>; claimed: Map<string, Payout> },
  ): Promise<void> {
    const payout = payouts.get(job.subjectId) ?? null;
    const open = payout?.status === 'INITIATED' || payout?.status === 'PROCESSING' || payout?.status === 'PENDING';
    const rail = payout && open ? this.connectors.get(payout.rail) : null;
    if (payout && open && !rail) return this.unconfigured(job, payout);
    if (payout?.status === 'INITIATED' && rail) {
      // A connector that does not submit one by one (bank files at a cut-off) takes the payout from the database.
      if (rail.submitDelayMs === null) return this.records.submit({ kind: 'done', job });
      return this.submit(job, payout, claimed.get(payout.id) ?? null, rail);
    }
    if ((payout?.status === 'PROCESSING' || payout?.status === 'PENDING') && rail) return this.poll(job, payout, rail);
    return this.records.submit(payout ? { kind: 'settle', job, payoutId: payout.id } : { kind: 'done', job });
  }

  private async submit(job: Job, payout: Payout, claimed: Payout | null, rail: BankConnector): Promise<void> {
    // Not claimed: no longer INITIATED, or the operator's (a rail error); the job is done.
    if (!claimed) return this.records.submit({ kind: 'done', job });
    const lost = claimed.submitAttempts - (claimed.submitAnswers ?? 0) - 1;
    if (!rail.readsBackSubmissions && lost >= MAX_SUBMISSIONS) {
      return this.onLocked(payout.id, job, initiated, (tx, current) =>
        this.lifecycle.recordRailError(
          tx,
          current,
          `the answers to ${MAX_SUBMISSIONS} submissions were lost; ask the bank about idempotency key ${payout.id}`,
        ),
      );
    }
    const since = claimed.railRetrySince;
    if (since && rail.retryForMs !== undefined && this.clock() - since.getTime() > rail.retryForMs) {
      // Refused for now for longer than the connector's retry period: the payout fails instead of trying again.
      const reason = `${claimed.railError ?? 'temporarily refused'} (gave up after ${Math.round(rail.retryForMs / 1000)} s of retries)`;
      return this.onLocked(payout.id, job, initiated, (tx, current) =>
        this.lifecycle.applySubmitAnswer(tx, current, { accepted: false, reason: reason.slice(0, 255) }),
      );
    }
    const { answer, threw } = await this.ask(rail, () => rail.submit(toTransfer(claimed)));
    this.noteAnswer(rail, answer, threw);
    // The connector has acted: its answer must be recorded, or the step would run again and submit again.
    return this.records.submit({
      kind: 'submit',
      job,
      payout: claimed,
      answer,
      retryDelayMs: retryDelayMs(rail, claimed.submitAnswers ?? 0),
    });
  }

  /** Asks the connector, outside any transaction; at most MAX_CALLS_PER_CONNECTOR at once unless it is in-process. */
  private ask(rail: BankConnector, call: () => Promise<unknown>): Promise<{ answer: unknown; threw: boolean }> {
    if (rail instanceof SandboxConnector) return ask(call);
    return this.calls.run(rail.name, () => ask(call));
  }

  /** The payout names a connector this server does not have (configuration changed): the operator's to settle. */
  private unconfigured(job: Job, payout: Payout): Promise<void> {
    return this.onLocked(
      payout.id,
      job,
      (current) => !current.railError,
      (tx, current) =>
        this.lifecycle.recordRailError(
          tx,
          current,
          `connector ${current.rail} is not configured on this server (PAYRAIL_CONNECTOR, PAYRAIL_CONNECTOR_ROUTES)`,
          'worker',
        ),
    );
  }

  /**
   * One payout's effect on its own, in a transaction: the payout locked, then (unless `job` is null: the worker
   * retries it) the job completed, the lock order of every step; `effect` runs only if the job was still this
   * claim's and the payout, as it is now, `applies`.
   */
  private async onLocked(
    payoutId: string,
    job: Job | null,
    applies: (current: Payout) => boolean,
    effect: (tx: Queryable, current: Payout) => Promise<unknown>,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      const current = await PayoutRepository.lockById(tx, payoutId);
      if (job && !(await JobRepository.complete(tx, job))) return;
      if (current && applies(current)) await effect(tx, current);
    });
  }

  /** A thrown error or a temporary refusal means the connector could not serve us; any other answer, that it did. */
  private noteAnswer(rail: BankConnector, answer: unknown, threw: boolean): void {
    if (!this.health) return;
    const temporary = (answer as { temporary?: unknown } | null)?.temporary === true;
    if (threw || temporary) {
      const why = threw ? (answer as Error).message : String((answer as { reason?: unknown }).reason ?? 'refused');
      this.health.failed(rail.name, why);
    } else {
      this.health.succeeded(rail.name);
    }
  }

  /**
   * A poll is a question, not a transfer: when the connector throws, the error is kept on the payout and the
   * poll is asked again with the worker's backoff. An outcome the table refuses stops the polling.
   */
  private async poll(job: Job, payout: Payout, rail: BankConnector): Promise<void> {
    const { answer, threw } = await this.ask(rail, () => rail.poll(toTransfer(payout)));
    this.noteAnswer(rail, answer, threw);
    if (threw) {
      // The job stays: the worker asks again with its backoff.
      await this.onLocked(
        payout.id,
        null,
        (current) => current.status === payout.status,
        (tx, current) =>
          this.lifecycle.recordRailError(tx, current, `poll failed: ${(answer as Error).message}`.slice(0, 255)),
      );
      throw answer;
    }
    return this.records.submit({ kind: 'poll', job, payout, answer });
  }

  /**
   * Records a group of steps in one transaction; if it fails for another reason than the database being away,
   * each step again in a transaction of its own, so that only the step at fault fails (and is retried by the
   * worker). Nothing is applied twice: a transaction that failed left nothing, and a step whose transaction did
   * commit has deleted its job, which makes any second record of it change nothing.
   */
  private async recordAll(items: StepRecord[]): Promise<ItemOutcome<void>[]> {
    try {
      await this.recordHeld(() => this.db.transaction((tx) => this.apply(tx, items)));
      return items.map(() => ({ ok: true, value: undefined }));
    } catch (err) {
      if (items.length === 1 || err instanceof DatabaseUnavailable) return items.map(() => ({ ok: false, error: err }));
    }
    const outcomes: ItemOutcome<void>[] = [];
    for (const item of items) {
      try {
        await this.recordHeld(() => this.db.transaction((tx) => this.apply(tx, [item])));
        outcomes.push({ ok: true, value: undefined });
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }

  /**
   * Runs `record` until it succeeds, retrying while the database is unavailable, for at most `answerHoldMs`.
   * Running it again is safe: a record that did commit before its acknowledgement was lost has deleted the jobs, so
   * the retry finds no job of ours and changes nothing.
   */
  private async recordHeld(record: () => Promise<void>): Promise<void> {
    const until = this.clock() + this.answerHoldMs;
    for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
      try {
        return await record();
      } catch (err) {
        if (!(err instanceof DatabaseUnavailable) || this.clock() + wait > until) throw err;
        await sleep(wait);
      }
    }
  }

  /**
   * The effects of `items`, in the caller's transaction: the payouts locked (in id order), then the jobs deleted
   * (lock order payout → job, as everywhere else), then the wallets, allowances and batch rows the steps write
   * (services/LockOrder.ts), then each step that still holds its job applied to its payout as it is now. Plain
   * moves (a submission accepted, a poll's new status) go through the lifecycle's set-based move, one statement per
   * connector whatever their number; everything else (refunds, refusals, answers that are not answers, returns)
   * through the lifecycle's own one-payout methods, in the same transaction.
   */
  private async apply(tx: Queryable, items: readonly StepRecord[]): Promise<void> {
    const ids = items.map(payoutIdOf).filter((id): id is string => id !== null);
    const locked = await PayoutStepRepository.lockMany(tx, ids);
    const owned = await JobRepository.completeMany(
      tx,
      items.map((i) => i.job),
    );
    const moves = new Map<string, BulkMove[]>();
    const move = (actor: string, m: BulkMove) => {
      const list = moves.get(actor);
      if (list) list.push(m);
      else moves.set(actor, [m]);
    };
    const unchanged: Payout[] = [];
    const oneByOne: (() => Promise<unknown>)[] = [];
    // The wallets, allowances and batch rows the steps below write, locked before the first write in the one order
    // (services/LockOrder.ts): applied step by step, one payout's failure would take its allowances before the
    // next one's refund takes its wallet, and an initiation holding that wallet for those allowances deadlocks.
    const locks = new LockPlan();
    for (const item of items) {
      if (!owned.has(item.job.id) || item.kind === 'done') continue;
      const current = locked.get(item.kind === 'settle' ? item.payoutId : item.payout.id) ?? null;
      if (!current) continue;
      if (item.kind === 'settle') {
        if (current.status !== 'FAILED') continue;
        locks.move(current, 'REFUNDED');
        oneByOne.push(async () => {
          if (!(await this.lifecycle.refund(tx, current))) throw new Error('refund lost a race');
        });
      } else if (item.kind === 'submit') {
        if (current.status !== 'INITIATED') continue;
        const decision = readSubmitAnswer(item.answer);
        if (decision.kind === 'accepted') {
          move(this.lifecycle.railActor(current), {
            payout: current,
            to: 'PROCESSING',
            railReference: decision.reference ?? undefined,
          });
        } else {
          if (decision.kind === 'refused') locks.move(current, 'FAILED');
          oneByOne.push(() => this.lifecycle.applySubmitAnswer(tx, current, item.answer, item.retryDelayMs));
        }
      } else {
        if (current.status !== item.payout.status) continue;
        const answer = item.answer as ReportedOutcome | null;
        const source = { connector: current.rail, channel: `${current.rail}_poll`.slice(0, 40), failureIsReturn: true };
        if (answer && typeof answer === 'object' && !checkReport(current, answer, source).ok) {
          // A poll answer that names another transfer or amount than the one sent moves nothing: it is an exception
          // (docs/operator/exceptions.md), kept as the payout's rail_error, and the polling stops for the operator.
          const actor = this.lifecycle.railActor(current);
          oneByOne.push(() => refuseUnmatched(tx, this.lifecycle, current, answer, source, actor, this.clock()));
          continue;
        }
        const decision = readOutcome(current.status, item.answer, {
          returned: Boolean(current.returnedAt),
          utr: current.utr,
        });
        if (decision.kind === 'move') {
          locks.move(current, decision.to);
          move(this.lifecycle.railActor(current), {
            payout: current,
            to: decision.to,
            message: decision.reason,
            utr: decision.utr,
          });
        } else if (decision.kind === 'unchanged') {
          unchanged.push(current);
        } else {
          if (decision.kind === 'return') locks.move(current, 'REFUNDED');
          oneByOne.push(() => this.lifecycle.applyOutcome(tx, current, item.answer));
        }
      }
    }
    await locks.take(tx);
    for (const [actor, list] of moves) await this.lifecycle.moveMany(tx, list, actor);
    await this.lifecycle.scheduleNextMany(tx, unchanged);
    for (const apply of oneByOne) await apply();
  }
}

/**
 * Backoff between submissions refused for now: 1 s, 2 s, 4 s, … capped at the connector's poll interval while
 * PROCESSING (a connector that cannot poll: one minute).
 */
export function retryDelayMs(rail: BankConnector, answersSoFar: number): number {
  const cap = rail.pollDelayMs('PROCESSING') ?? 60_000;
  return Math.min(1000 * 2 ** Math.min(answersSoFar, 16), Math.max(cap, 1));
}
