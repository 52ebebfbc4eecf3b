import { formatPaise, isId, type CollectionStatus, type CollectionTransactionWire } from '@payrail/protocol';
import type { Clock } from '../clock.ts';
import type { Mode } from '../config.ts';
import { toCollectionWire, type Collection } from '../domain/Collection.ts';
import {
  canCollectionTransition,
  COLLECTION_STATUS_MESSAGE,
  collectionEventType,
} from '../domain/collectionStateMachine.ts';
import { newUtr } from '../domain/utr.ts';
import type { Metrics } from '../observability/Metrics.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { CollectionRepository } from '../store/repositories/CollectionRepository.ts';
import { JobRepository, type Job } from '../store/repositories/JobRepository.ts';
import { LedgerRepository } from '../store/repositories/LedgerRepository.ts';
import { MerchantRepository } from '../store/repositories/MerchantRepository.ts';
import { TransactionEventRepository } from '../store/repositories/TransactionEventRepository.ts';
import { referenceConflictMessage, referenceOwnedElsewhere } from './pspReferences.ts';
import { enqueueWebhook } from './WebhookOutbox.ts';

export type FinalOutcome = 'SUCCESS' | 'FAILED' | 'PENDING';

/** Why an outcome was not applied (besides not_found); `status` is the collection's, which did not move. */
export type OutcomeRefusal =
  'invalid_transition' | 'utr_required' | 'utr_conflict' | 'amount_mismatch' | 'reference_conflict';

export type OutcomeResult =
  | { ok: true; collection: Collection; changed: boolean }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: OutcomeRefusal; status: CollectionStatus; message: string };

/** Who reports an outcome and what comes with it (every path: sandbox simulate, operator, PSP notification). */
export interface OutcomeDetails {
  utr?: string;
  /** The status message the merchant sees (default: the status's own). */
  message?: string;
  /** Why, for the history (default: the status message). */
  reason?: string;
  /** Only this merchant's collection (the sandbox route). */
  merchantId?: string;
  /** History actor: `merchant`, `operator:<name>`, `psp`, `system`. */
  actor?: string;
  /** What the payer paid (paise): a different amount is refused, never credited. */
  amountPaid?: bigint;
  /** The PSP's reference of the payment: kept the first time; another one for the same collection is refused. */
  pspReference?: string;
  /**
   * Keep refusals in the history as error events (once each): a notification's sender is a machine, so the
   * operator must be able to see what it was refused.
   */
  recordRefusals?: boolean;
}

export interface CollectionOutcomesOptions {
  mode: Mode;
  /** External base URL of payment-page links: the webhooks carry the collection with its paymentUrl. */
  publicUrl: () => string;
  /** The composition root's clock. */
  clock: Clock;
  /** GST on fees, in hundredths of a percent (PAYRAIL_GST_RATE): a SUCCESS is charged its plan's fee with it. */
  gstRateBp: number;
}

/**
 * The lifecycle of a collection (INITIATED → SUCCESS / FAILED / PENDING, PENDING → SUCCESS / FAILED): the only
 * place a collection's status changes, whoever reports it (sandbox simulation, payment page, operator, PSP or
 * bank notification, the upstream, the expiry job), so the wallet credit of a SUCCESS, the webhook and the history
 * happen exactly once and the same way for all of them.
 */
export class CollectionOutcomes {
  constructor(
    private readonly db: Database,
    private readonly metrics: Metrics,
    private readonly options: CollectionOutcomesOptions,
  ) {}

  /**
   * Records an outcome reported for a collection: the one path of every report (the sandbox simulation, an
   * operator's resolution, a PSP or bank notification), which credits a SUCCESS once through the ledger, enqueues
   * the webhook and writes the history. The same outcome reported again, or concurrently, changes nothing: the row
   * lock serialises reports, and the ledger's unique index would refuse a second credit anyway.
   */
  async applyOutcome(txnId: string, outcome: FinalOutcome, details: OutcomeDetails = {}): Promise<OutcomeResult> {
    if (!isId('collection', txnId)) return { ok: false, reason: 'not_found' };
    return this.db.transaction(async (tx): Promise<OutcomeResult> => {
      const current = await CollectionRepository.lockById(tx, txnId);
      if (!current || (details.merchantId && current.merchantId !== details.merchantId)) {
        return { ok: false, reason: 'not_found' };
      }
      const refuse = async (reason: OutcomeRefusal, message: string): Promise<OutcomeResult> => {
        if (details.recordRefusals) {
          await TransactionEventRepository.recordErrorOnce(tx, current.id, message, details.actor ?? 'system');
        }
        return { ok: false, reason, status: current.status, message };
      };
      if (details.pspReference && current.pspReference && current.pspReference !== details.pspReference) {
        return refuse(
          'reference_conflict',
          `notified reference ${details.pspReference} differs from the recorded ${current.pspReference}`,
        );
      }
      // A reference new to this collection is kept only if no other collection or payout has it, and only once
      // nothing else refuses the report: a refused notification keeps nothing of itself.
      const newReference = current.pspReference ? undefined : details.pspReference;
      if (newReference) {
        const owner = await referenceOwnedElsewhere(tx, newReference, current.id);
        if (owner) return refuse('reference_conflict', referenceConflictMessage(newReference, owner));
      }
      if (details.amountPaid !== undefined && details.amountPaid !== current.amount) {
        return refuse(
          'amount_mismatch',
          `notified ${outcome} with amount ${formatPaise(details.amountPaid)}, but the collection is for ${formatPaise(current.amount)}; not applied`,
        );
      }
      if (current.status === outcome) {
        if (outcome === 'SUCCESS' && details.utr !== undefined && details.utr !== current.utr) {
          return refuse('utr_conflict', `SUCCESS with utr ${details.utr}, but utr ${current.utr} is recorded`);
        }
      } else if (!canCollectionTransition(current.status, outcome)) {
        return refuse('invalid_transition', `the collection is ${current.status} and cannot become ${outcome}`);
      } else if (outcome === 'SUCCESS' && !details.utr && this.options.mode === 'live') {
        return refuse('utr_required', 'a SUCCESS needs the UTR of the payment in live mode');
      }
      // The check above cannot see a claim of another transaction that commits after it; the unique index does.
      if (newReference && !(await CollectionRepository.recordPspReference(tx, current.id, newReference))) {
        return refuse('reference_conflict', referenceConflictMessage(newReference, 'collection'));
      }
      if (current.status === outcome) return { ok: true, collection: current, changed: false };
      const moved = await this.move(tx, current, outcome, details);
      return { ok: true, collection: moved, changed: true };
    });
  }

  /**
   * An operator settles a collection (live mode has no other way without a PSP integration): SUCCESS, FAILED or
   * PENDING through the same path as every report, audited with the operator as actor and the reason given.
   */
  resolve(
    txnId: string,
    outcome: FinalOutcome,
    input: { utr?: string; reason?: string; actor: string },
  ): Promise<OutcomeResult> {
    return this.applyOutcome(txnId, outcome, {
      utr: input.utr,
      reason: input.reason,
      actor: input.actor,
      message: `${COLLECTION_STATUS_MESSAGE[outcome]} (resolved by operator)`,
    });
  }

  /**
   * Job `collection.expire`: an INITIATED collection past its expiry fails. The collection is locked before the
   * job row, in the same order as applyOutcome (collection, then the job it cancels); the other order
   * deadlocks against an outcome reported at the moment of expiry.
   */
  async expire(job: Job): Promise<void> {
    await this.db.transaction(async (tx) => {
      const current = await CollectionRepository.lockById(tx, job.subjectId);
      if (!(await JobRepository.complete(tx, job))) return;
      if (current?.status !== 'INITIATED') return;
      await this.move(tx, current, 'FAILED', { message: 'Collection request expired before payment', actor: 'system' });
    });
  }

  private wire(c: Collection): CollectionTransactionWire {
    return toCollectionWire(c, this.options.publicUrl());
  }

  private async move(
    tx: Queryable,
    current: Collection,
    to: CollectionStatus,
    details: { utr?: string; message?: string; reason?: string; actor?: string },
  ): Promise<Collection> {
    if (to === 'SUCCESS') {
      // The credit, then the plan's fee and its GST, in one statement (function collection_credit, migration 029).
      await LedgerRepository.creditCollection(tx, current.id, this.options.gstRateBp);
    }
    const utr = to === 'SUCCESS' ? (details.utr ?? newUtr()) : details.utr;
    const moved = await CollectionRepository.transition(tx, current.id, current.status, to, {
      statusMessage: details.message ?? COLLECTION_STATUS_MESSAGE[to],
      utr,
      actor: details.actor ?? 'system',
      reason: details.reason,
      at: new Date(this.options.clock()),
    });
    if (!moved) throw new Error(`collection ${current.id} moved under its lock`);
    if (to !== 'PENDING') await JobRepository.cancel(tx, 'collection.expire', current.id);
    const type = collectionEventType(to);
    if (type) {
      // The merchant's default callback is read only when the collection has none of its own.
      const url = moved.callbackUrl ?? (await MerchantRepository.collectionCallbackUrl(tx, current.merchantId));
      await enqueueWebhook(
        tx,
        {
          merchantId: current.merchantId,
          subjectId: current.id,
          type,
          url,
          scheme: moved.scheme,
          object: this.wire(moved),
        },
        new Date(this.options.clock()),
      );
    }
    this.metrics.collectionTransitions.inc({ status: to });
    return moved;
  }
}
