import { CollectionCodes, parseRupees, withMessage, type CodeDef } from '@payrail/protocol';
import type { Clock } from '../clock.ts';
import type { UpstreamSettings } from '../connectorConfig.ts';
import type { Collection } from '../domain/Collection.ts';
import { RequestRejected } from '../domain/RequestRejected.ts';
import { UpstreamUnreachable } from '../rails/upstream/UpstreamClient.ts';
import {
  describeUpstreamAnswer as describe,
  NotOurCopy,
  upstreamCollectionOutcome,
  upstreamCopyOf,
  type UpstreamCollection,
  type UpstreamCollections,
} from '../rails/upstream/UpstreamCollections.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { CollectionRepository } from '../store/repositories/CollectionRepository.ts';
import { JobRepository, type Job } from '../store/repositories/JobRepository.ts';
import type { CollectionOutcomes } from './CollectionOutcomes.ts';
import type { ConnectorHealth } from './ConnectorHealth.ts';

/** The job that follows a collection routed upstream: it finishes a creation left unfinished, then polls. */
export const UPSTREAM_COLLECTION_JOB = 'collection.upstream' as const;

/**
 * The merchant's answer when the upstream could not create the collection now (unreachable, throttled, its own
 * error): HTTP 503 with 4014, like a bank down at payout initiation (docs/merchant/api-reference.md). Never a 5000: the merchant may
 * try again with another senderId; the collection it was given is FAILED with the reason.
 */
export const UPSTREAM_COLLECTIONS_UNAVAILABLE: CodeDef = CollectionCodes.upstreamUnavailable;

/** Attempts at creating the upstream's copy within the merchant's request (the second one reads first). */
const ATTEMPTS = 2;
/** An INITIATED collection the upstream still reports unpaid this long after its expiry fails here too. */
export const UPSTREAM_EXPIRY_GRACE_MS = 10 * 60_000;

/** What became of an upstream report on one of our collections. */
export type UpstreamCollectionResult = 'applied' | 'unchanged' | 'ignored';

/**
 * Collections routed to the upstream connector (PAYRAIL_CONNECTOR=upstream; docs/operator/connectors.md). Payrail keeps its own
 * collection (its txnId, the merchant's senderId, the wallet it credits) and creates a copy at the upstream in
 * Payrail's account there, with `senderId` = our txnId: the payer is sent to the upstream's `intentUrl` and
 * `paymentUrl`, so the money lands in Payrail's upstream wallet, and the upstream's outcome (its webhook, or a
 * poll with `POST /collection/v1/status`) is applied through our collection state machine, which credits the
 * merchant's wallet once. The upstream is asked through rails/upstream/UpstreamCollections.ts, outside any
 * transaction; what it answers is recorded and applied here.
 *
 * Never two copies: the upstream refuses a second collection with the same senderId (4112), and a creation whose
 * answer was lost is recovered by reading the copy by senderId before anything is sent again.
 */
export class UpstreamCollectionService {
  constructor(
    private readonly db: Database,
    private readonly upstream: UpstreamCollections,
    private readonly settings: UpstreamSettings,
    /** The collection state machine that applies the upstream's outcomes. */
    private readonly outcomes: CollectionOutcomes,
    private readonly health: ConnectorHealth,
    private readonly clock: Clock,
  ) {}

  /**
   * How long a collection may stay without its upstream copy before the follow-up looks for it: the merchant's
   * request may still be creating it (each attempt may take a token request and the request, each up to the
   * timeout).
   */
  private get creationWindowMs(): number {
    return ATTEMPTS * 2 * this.settings.timeoutMs + 5_000;
  }

  /** In the creation's transaction: the follow-up job (in place of the local expiry: the upstream decides). */
  async scheduleFollowUp(tx: Queryable, c: Collection): Promise<void> {
    await JobRepository.schedule(tx, UPSTREAM_COLLECTION_JOB, c.id, this.settings.pollMs.processing);
  }

  /**
   * Creates the upstream's copy of a new collection and records it (the merchant's answer then carries the
   * upstream's links). The second attempt reads the copy by senderId first: the first one may have created it
   * without its answer arriving. When no attempt succeeds, our collection is FAILED with the reason and the
   * merchant is answered 4110 / 4111 (the upstream refused the request) or 503 (it could not be asked).
   */
  async link(c: Collection): Promise<Collection> {
    let reason = 'upstream: no answer';
    let refusal: CodeDef | null = null;
    for (let attempt = 1; attempt <= ATTEMPTS && !refusal; attempt++) {
      try {
        if (attempt > 1) {
          const known = await this.upstream.read(c.id);
          if (known.code === 2000 && known.data) return await this.record(c, known.data);
          if (known.code !== 4104) {
            reason = describe(known);
            continue;
          }
        }
        const answer = await this.upstream.create(c);
        if (answer.code === 2000 && answer.data) return await this.record(c, answer.data);
        if (answer.code === 4112) {
          // The upstream already holds our copy: its record is the answer (never a second collection).
          const known = answer.data ? answer : await this.upstream.read(c.id);
          if (known.data) return await this.record(c, known.data);
        }
        reason = describe(answer);
        if ((answer.code === 4110 || answer.code === 4111) && answer.httpStatus < 500) {
          const base = answer.code === 4110 ? CollectionCodes.invalidAmount : CollectionCodes.invalidField;
          refusal = withMessage(base, `Refused by the upstream provider: ${reason}`);
        }
      } catch (err) {
        if (err instanceof UpstreamUnreachable) {
          reason = `upstream unreachable: ${err.message}`.slice(0, 255);
          this.health.failed('upstream', reason);
        } else if (err instanceof NotOurCopy) {
          reason = err.message;
          refusal = UPSTREAM_COLLECTIONS_UNAVAILABLE;
        } else {
          throw err;
        }
      }
    }
    await this.fail(c.id, `Not created at the upstream provider (${reason})`);
    throw new RequestRejected(refusal ?? UPSTREAM_COLLECTIONS_UNAVAILABLE);
  }

  /** Job `collection.upstream`: finish an unfinished creation, then follow the upstream's copy until final. */
  async run(job: Job): Promise<void> {
    const c = await CollectionRepository.findById(this.db, job.subjectId);
    if (!c || c.connector !== 'upstream' || c.status === 'SUCCESS' || c.status === 'FAILED') {
      await JobRepository.complete(this.db, job);
      return;
    }
    const age = this.clock() - c.createdAt.getTime();
    if (!c.upstream && age < this.creationWindowMs) {
      await JobRepository.schedule(this.db, UPSTREAM_COLLECTION_JOB, c.id, this.creationWindowMs - age);
      return;
    }
    const known = await this.upstream.read(c.id);
    if (known.code === 4104 && !c.upstream) {
      // The creation never reached the upstream and nobody was given a link to pay: nothing can be paid.
      await this.fail(c.id, 'Not created at the upstream provider (its creation did not finish)');
      await JobRepository.complete(this.db, job);
      return;
    }
    if (known.code !== 2000 || !known.data) throw new Error(`upstream collection status ${describe(known)}`);
    this.health.succeeded('upstream');
    if (!c.upstream) await this.record(c, known.data).catch(() => null);
    await this.apply(c.id, known.data);
    const after = await CollectionRepository.findById(this.db, c.id);
    if (!after || after.status === 'SUCCESS' || after.status === 'FAILED') {
      await JobRepository.complete(this.db, job);
      return;
    }
    if (after.status === 'INITIATED' && this.clock() > after.expiresAt.getTime() + UPSTREAM_EXPIRY_GRACE_MS) {
      await this.fail(c.id, 'Collection request expired before payment (the upstream reported no payment)');
      await JobRepository.complete(this.db, job);
      return;
    }
    const delay = after.status === 'PENDING' ? this.settings.pollMs.pending : this.settings.pollMs.processing;
    await JobRepository.schedule(this.db, UPSTREAM_COLLECTION_JOB, c.id, delay);
  }

  /**
   * A verified upstream event about one of our collections (`senderId` = our txnId), applied like a poll; an event
   * about a copy other than the one recorded is ignored.
   */
  async receive(txnId: string, data: UpstreamCollection): Promise<UpstreamCollectionResult> {
    const c = await CollectionRepository.findById(this.db, txnId);
    if (!c || c.connector !== 'upstream') return 'ignored';
    // The recorded copy's txnId is never empty (upstreamCopyOf): an event without one is about no copy of ours.
    if (c.upstream && data.txnId !== c.upstream.txnId) return 'ignored';
    return this.apply(c.id, data);
  }

  /** An event that did not verify named this collection: the upstream is asked at once instead of believed. */
  async pollSoon(txnId: string): Promise<void> {
    const c = await CollectionRepository.findById(this.db, txnId);
    if (c?.connector !== 'upstream' || (c.status !== 'INITIATED' && c.status !== 'PENDING')) return;
    await JobRepository.schedule(this.db, UPSTREAM_COLLECTION_JOB, c.id, 0);
  }

  /** The upstream's copy's status as an outcome of ours, through the one collection state machine. */
  private async apply(txnId: string, data: UpstreamCollection): Promise<UpstreamCollectionResult> {
    const report = upstreamCollectionOutcome(data);
    if (!report) return 'unchanged';
    const amount = parseRupees(data.requestAmount ?? data.amount);
    const result = await this.outcomes.applyOutcome(txnId, report.outcome, {
      ...report.details,
      actor: 'rail:upstream',
      recordRefusals: true,
      ...(amount !== null ? { amountPaid: amount } : {}),
    });
    if (!result.ok) return result.reason === 'not_found' ? 'ignored' : 'unchanged';
    return result.changed ? 'applied' : 'unchanged';
  }

  private async fail(txnId: string, message: string): Promise<void> {
    await this.outcomes.applyOutcome(txnId, 'FAILED', { message, actor: 'rail:upstream' });
  }

  /** Records the upstream's copy on our collection; the collection as it is now. */
  private async record(c: Collection, data: UpstreamCollection): Promise<Collection> {
    const linked = await CollectionRepository.linkUpstream(this.db, c.id, upstreamCopyOf(c, data));
    this.health.succeeded('upstream');
    if (!linked) {
      // Failed meanwhile (the follow-up gave up on it): the merchant cannot be given links to pay it.
      throw new NotOurCopy('the collection was closed before its upstream copy was recorded');
    }
    // The copy is known: the follow-up polls it from now on (it may have put itself off while the link was made).
    await JobRepository.schedule(this.db, UPSTREAM_COLLECTION_JOB, c.id, this.settings.pollMs.processing);
    return linked;
  }
}
