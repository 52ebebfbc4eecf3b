import { CollectionCodes, isId, withMessage, type CollectionStatus, type Scheme } from '@payrail/protocol';
import type { Mode } from '../config.ts';
import { toCollectionWire, type Collection } from '../domain/Collection.ts';
import { parseCollectionFields } from '../domain/collectionRequest.ts';
import {
  canCollectionTransition,
  COLLECTION_STATUS_MESSAGE,
  collectionEventType,
} from '../domain/collectionStateMachine.ts';
import { newId } from '../domain/ids.ts';
import type { Merchant } from '../domain/Merchant.ts';
import { RequestRejected } from '../domain/RequestRejected.ts';
import { upiIntentUrl } from '../domain/upiIntent.ts';
import { newUtr } from '../domain/utr.ts';
import type { Metrics } from '../observability/Metrics.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { CollectionRepository, type CollectionPageQuery } from '../store/repositories/CollectionRepository.ts';
import { JobRepository, type Job } from '../store/repositories/JobRepository.ts';
import { LedgerRepository } from '../store/repositories/LedgerRepository.ts';
import { MerchantRepository } from '../store/repositories/MerchantRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';
import type { CallbackPolicy } from './CallbackPolicy.ts';
import { buildTimeline, type Timeline } from './transactionTimeline.ts';
import { enqueueWebhook } from './WebhookOutbox.ts';

export type FinalOutcome = 'SUCCESS' | 'FAILED' | 'PENDING';

export type OutcomeResult =
  | { ok: true; collection: Collection; changed: boolean }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'invalid_transition'; status: CollectionStatus };

/** The UPI link that pays this collection to the payee. */
function intentUrlOf(c: Collection, payee: { payeeVpa: string; payeeName: string }): string {
  return upiIntentUrl({ ...payee, amount: c.amount, txnId: c.id, remarks: c.remarks });
}

export interface CreatedCollection {
  collection: Collection;
  intentUrl: string;
}

/**
 * UPI collections: creation with an intent link, status, the lifecycle (INITIATED → SUCCESS / FAILED /
 * PENDING, PENDING → SUCCESS / FAILED), expiry, and the wallet credit of a SUCCESS, exactly once.
 */
export class CollectionService {
  constructor(
    private readonly db: Database,
    private readonly callbackPolicy: CallbackPolicy,
    private readonly metrics: Metrics,
    private readonly options: { mode: Mode; ttlMs: number },
  ) {}

  async initiate(merchant: Merchant, scheme: Scheme, plain: Record<string, unknown>): Promise<CreatedCollection> {
    const fields = parseCollectionFields(plain);
    const wallet = fields.walletId
      ? await WalletRepository.findById(this.db, fields.walletId)
      : await WalletRepository.firstOfMerchant(this.db, merchant.id);
    if (!wallet || wallet.merchantId !== merchant.id) {
      throw new RequestRejected(withMessage(CollectionCodes.invalidField, 'Invalid walletId: unknown wallet'));
    }
    if (fields.callbackUrl) {
      const problem = await this.callbackPolicy.check(fields.callbackUrl);
      if (problem)
        throw new RequestRejected(withMessage(CollectionCodes.invalidField, `Invalid callbackUrl: ${problem}`));
    }
    const payee = this.payee(merchant);

    const now = new Date();
    const draft: Collection = {
      id: newId('collection', now.getTime()),
      merchantId: merchant.id,
      walletId: wallet.id,
      senderId: fields.senderId,
      amount: fields.amount,
      remarks: fields.remarks,
      paymentMode: fields.payerVpa ? 'Collect' : 'Intent',
      payerVpa: fields.payerVpa ?? '',
      callbackUrl: fields.callbackUrl,
      scheme,
      status: 'INITIATED',
      statusMessage: fields.payerVpa
        ? `Collect request sent to ${fields.payerVpa}`
        : COLLECTION_STATUS_MESSAGE.INITIATED,
      utr: '',
      expiresAt: new Date(now.getTime() + this.options.ttlMs),
      createdAt: now,
      updatedAt: now,
    };
    const collection = await this.db.transaction(async (tx) => {
      const inserted = await CollectionRepository.insert(tx, draft);
      if (inserted) await JobRepository.schedule(tx, 'collection.expire', inserted.id, this.options.ttlMs);
      return inserted;
    });
    if (!collection) {
      // The unique constraint found this senderId (checked last, after every field): 4112 with the existing one.
      const existing = await CollectionRepository.findBySenderId(this.db, merchant.id, fields.senderId);
      throw new RequestRejected(
        CollectionCodes.duplicateSenderId,
        existing ? { ...toCollectionWire(existing), intentUrl: intentUrlOf(existing, payee) } : undefined,
      );
    }
    return { collection, intentUrl: intentUrlOf(collection, payee) };
  }

  /** The UPI intent link of one of the merchant's collections (for a QR code), or null if it is not theirs. */
  async intentUrlOf(merchant: Merchant, txnId: string): Promise<string | null> {
    const c = await CollectionRepository.findById(this.db, txnId);
    if (!c || c.merchantId !== merchant.id) return null;
    return intentUrlOf(c, this.payee(merchant));
  }

  /** Payee address and name: the merchant's UPI settings; in the sandbox, defaults derived from the merchant. */
  private payee(merchant: Merchant): { payeeVpa: string; payeeName: string } {
    if (merchant.upiVpa) return { payeeVpa: merchant.upiVpa, payeeName: merchant.upiPayeeName ?? merchant.name };
    if (this.options.mode === 'live') {
      throw new RequestRejected(
        withMessage(CollectionCodes.invalidField, 'No UPI payee address is configured for this merchant (upi_vpa)'),
      );
    }
    return { payeeVpa: `${merchant.id.toLowerCase()}@payrail`, payeeName: merchant.upiPayeeName ?? merchant.name };
  }

  findById(txnId: string): Promise<Collection | null> {
    return CollectionRepository.findById(this.db, txnId);
  }

  findBySenderId(merchantId: string, senderId: string): Promise<Collection | null> {
    return CollectionRepository.findBySenderId(this.db, merchantId, senderId);
  }

  page(query: CollectionPageQuery): Promise<Collection[]> {
    return CollectionRepository.page(this.db, query);
  }

  /** The collection's history (docs/operations.md), or null when there is no such collection. */
  async timeline(txnId: string): Promise<Timeline | null> {
    const c = isId('collection', txnId) ? await CollectionRepository.findById(this.db, txnId) : null;
    if (!c) return null;
    return buildTimeline(this.db, c.id, c.createdAt, 'merchant');
  }

  /**
   * Records an outcome reported for a collection (the sandbox simulation, or a bank notification). The same
   * outcome reported again, or concurrently, changes nothing: the row lock serialises reports, and the ledger's
   * unique index would refuse a second credit anyway.
   */
  async applyOutcome(
    txnId: string,
    outcome: FinalOutcome,
    details: { utr?: string; message?: string; merchantId?: string; actor?: string } = {},
  ): Promise<OutcomeResult> {
    if (!isId('collection', txnId)) return { ok: false, reason: 'not_found' };
    return this.db.transaction(async (tx): Promise<OutcomeResult> => {
      const current = await CollectionRepository.lockById(tx, txnId);
      if (!current || (details.merchantId && current.merchantId !== details.merchantId)) {
        return { ok: false, reason: 'not_found' };
      }
      if (current.status === outcome) return { ok: true, collection: current, changed: false };
      if (!canCollectionTransition(current.status, outcome)) {
        return { ok: false, reason: 'invalid_transition', status: current.status };
      }
      const moved = await this.move(tx, current, outcome, details);
      return { ok: true, collection: moved, changed: true };
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

  private async move(
    tx: Queryable,
    current: Collection,
    to: CollectionStatus,
    details: { utr?: string; message?: string; actor?: string },
  ): Promise<Collection> {
    if (to === 'SUCCESS') {
      await LedgerRepository.append(tx, {
        walletId: current.walletId,
        kind: 'collection_credit',
        amount: current.amount,
        collectionId: current.id,
      });
    }
    const utr = to === 'SUCCESS' ? (details.utr ?? newUtr()) : details.utr;
    const moved = await CollectionRepository.transition(tx, current.id, current.status, to, {
      statusMessage: details.message ?? COLLECTION_STATUS_MESSAGE[to],
      utr,
      actor: details.actor ?? 'system',
    });
    if (!moved) throw new Error(`collection ${current.id} moved under its lock`);
    if (to !== 'PENDING') await JobRepository.cancel(tx, 'collection.expire', current.id);
    const type = collectionEventType(to);
    if (type) {
      // The merchant's default callback is read only when the collection has none of its own.
      const url = moved.callbackUrl ?? (await MerchantRepository.collectionCallbackUrl(tx, current.merchantId));
      await enqueueWebhook(tx, {
        merchantId: current.merchantId,
        subjectId: current.id,
        type,
        url,
        scheme: moved.scheme,
        object: toCollectionWire(moved),
      });
    }
    this.metrics.collectionTransitions.inc({ status: to });
    return moved;
  }
}
