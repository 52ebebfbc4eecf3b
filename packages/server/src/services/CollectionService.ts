import {
  CollectionCodes,
  formatPaise,
  isId,
  isSenderId,
  withMessage,
  type CollectionStatus,
  type CollectionTransactionWire,
  type Scheme,
} from '@payrail/protocol';
import type { Mode } from '../config.ts';
import { toCollectionWire, type Collection } from '../domain/Collection.ts';
import { parseCollectionFields } from '../domain/collectionRequest.ts';
import {
  canCollectionTransition,
  COLLECTION_STATUS_MESSAGE,
  collectionEventType,
} from '../domain/collectionStateMachine.ts';
import { newId } from '../domain/ids.ts';
import { registeredVpas, type Merchant } from '../domain/Merchant.ts';
import { isPaymentPageToken, newPaymentPageToken } from '../domain/paymentPageToken.ts';
import { RequestRejected } from '../domain/RequestRejected.ts';
import { upiIntentUrl } from '../domain/upiIntent.ts';
import { newUtr } from '../domain/utr.ts';
import type { Metrics } from '../observability/Metrics.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { CollectionRepository, type CollectionPageQuery } from '../store/repositories/CollectionRepository.ts';
import { JobRepository, type Job } from '../store/repositories/JobRepository.ts';
import { LedgerRepository } from '../store/repositories/LedgerRepository.ts';
import { MerchantRepository } from '../store/repositories/MerchantRepository.ts';
import { TransactionEventRepository } from '../store/repositories/TransactionEventRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';
import type { CallbackPolicy } from './CallbackPolicy.ts';
import { referenceConflictMessage, referenceOwnedElsewhere } from './pspReferences.ts';
import { buildTimeline, type Timeline } from './transactionTimeline.ts';
import { enqueueWebhook } from './WebhookOutbox.ts';
import type { Clock } from '../clock.ts';

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

/** The UPI link that pays this collection to its payee (routed upstream: the upstream's link). */
function intentUrlOf(c: Collection): string {
  if (c.upstream) return c.upstream.intentUrl;
  return upiIntentUrl({
    payeeVpa: c.payeeVpa,
    payeeName: c.payeeName,
    amount: c.amount,
    txnId: c.id,
    remarks: c.remarks,
  });
}

/** A lookup of collection status: the query of the GET form, or the decrypted payload of the POST form. */
export interface CollectionLookup {
  txnId?: unknown;
  senderId?: unknown;
}

/** An identifier counts as given unless absent, null or empty (`?txnId=` is the same as no txnId). */
const given = (value: unknown) => value !== undefined && value !== null && value !== '';

/** What the hosted payment page shows, and nothing more (it is reachable by anyone holding the link). */
export interface PaymentPageView {
  payeeName: string;
  /** Rupees, two fraction digits. */
  amount: string;
  remarks: string;
  intentUrl: string;
  status: CollectionStatus;
  /** Sandbox mode: the page offers buttons that simulate the payer's bank. */
  sandbox: boolean;
}

export interface PaymentPageStatus {
  status: CollectionStatus;
  final: boolean;
}

export interface CollectionServiceOptions {
  mode: Mode;
  ttlMs: number;
  /** External base URL of payment-page links (PAYRAIL_PUBLIC_URL, or the listen address once known). */
  publicUrl: () => string;
  /** The composition root's clock. */
  clock: Clock;
  /** Set when collections are routed to the upstream connector (rails/upstream/UpstreamCollections.ts). */
  upstream?: UpstreamCollectionRouting | null;
}

/** Collections routed upstream (docs/operator/connectors.md, "Collections through the upstream"): a copy at the upstream, whose links the payer is sent to. */
export interface UpstreamCollectionRouting {
  /** In the creation's transaction: the follow-up job, in place of the local expiry (the upstream decides). */
  scheduleFollowUp(tx: Queryable, c: Collection): Promise<void>;
  /** Creates and records the upstream's copy; throws RequestRejected (ours FAILED) when it cannot. */
  link(c: Collection): Promise<Collection>;
}

const isFinal = (status: CollectionStatus) => status === 'SUCCESS' || status === 'FAILED';

/**
 * UPI collections: creation with an intent link and a hosted payment page, status (both forms, one set of rules),
 * the lifecycle (INITIATED → SUCCESS / FAILED / PENDING, PENDING → SUCCESS / FAILED), expiry, and the wallet
 * credit of a SUCCESS, exactly once.
 */
export class CollectionService {
  constructor(
    private readonly db: Database,
    private readonly callbackPolicy: CallbackPolicy,
    private readonly metrics: Metrics,
    private readonly options: CollectionServiceOptions,
  ) {}

  /** The collection object as every answer and webhook carries it (with paymentUrl). */
  wire(c: Collection): CollectionTransactionWire {
    return toCollectionWire(c, this.options.publicUrl());
  }

  /** The object of a creation answer (and of a duplicate's 4112): the collection plus its intent link. */
  private createdWire(c: Collection): CollectionTransactionWire {
    return { ...this.wire(c), intentUrl: intentUrlOf(c) };
  }

  async initiate(
    merchant: Merchant,
    scheme: Scheme,
    plain: Record<string, unknown>,
  ): Promise<CollectionTransactionWire> {
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
    const payee = this.payee(merchant, fields.vpa);

    const now = new Date(this.options.clock());
    const collect = fields.txnType === 'COLLECT';
    const draft: Collection = {
      id: newId('collection', now.getTime()),
      merchantId: merchant.id,
      walletId: wallet.id,
      senderId: fields.senderId,
      amount: fields.amount,
      remarks: fields.remarks,
      paymentMode: collect ? 'Collect' : 'Intent',
      txnType: fields.txnType,
      payerVpa: fields.payerVpa ?? '',
      payeeVpa: payee.payeeVpa,
      payeeName: payee.payeeName,
      channel: fields.channel,
      callbackUrl: fields.callbackUrl,
      scheme,
      status: 'INITIATED',
      statusMessage: collect ? `Collect request sent to ${fields.payerVpa}` : COLLECTION_STATUS_MESSAGE.INITIATED,
      utr: '',
      pageToken: newPaymentPageToken(),
      pspReference: null,
      connector: this.options.upstream ? 'upstream' : null,
      expiresAt: new Date(now.getTime() + this.options.ttlMs),
      createdAt: now,
      updatedAt: now,
    };
    const collection = await this.db.transaction(async (tx) => {
      const inserted = await CollectionRepository.insert(tx, draft);
      if (inserted && this.options.upstream) await this.options.upstream.scheduleFollowUp(tx, inserted);
      else if (inserted) await JobRepository.schedule(tx, 'collection.expire', inserted.id, this.options.ttlMs);
      return inserted;
    });
    if (!collection) {
      // The unique constraint found this senderId (checked last, after every field): 4112 with the existing one.
      const existing = await CollectionRepository.findBySenderId(this.db, merchant.id, fields.senderId);
      throw new RequestRejected(CollectionCodes.duplicateSenderId, existing ? this.createdWire(existing) : undefined);
    }
    if (this.options.upstream) return this.createdWire(await this.options.upstream.link(collection));
    return this.createdWire(collection);
  }

  /**
   * Collection status, the provider interface's rules in their order of precedence, for both the GET form (query)
   * and the POST form (decrypted payload): 1 neither identifier 4000; 2 both 4103; 3 malformed txnId 4105; 4 not found 4104;
   * 5 another merchant's 4107; 6 no valid token 4008. A senderId is looked up within the caller's own
   * collections, so it needs the token before it can be found. (The POST form has checked the token already: its
   * payload cannot be read without one.)
   */
  async status(merchant: Merchant | null, lookup: CollectionLookup): Promise<CollectionTransactionWire> {
    const { txnId, senderId } = lookup;
    if (!given(txnId) && !given(senderId)) throw new RequestRejected(CollectionCodes.neitherIdentifier);
    if (given(txnId) && given(senderId)) throw new RequestRejected(CollectionCodes.bothIdentifiers);
    let collection: Collection | null;
    if (given(txnId)) {
      if (!isId('collection', txnId)) throw new RequestRejected(CollectionCodes.malformedTxnId);
      collection = await CollectionRepository.findById(this.db, txnId);
      if (!collection) throw new RequestRejected(CollectionCodes.notFound);
      if (!merchant) throw new RequestRejected(CollectionCodes.unauthorized);
      if (collection.merchantId !== merchant.id) throw new RequestRejected(CollectionCodes.otherMerchant);
    } else {
      if (!merchant) throw new RequestRejected(CollectionCodes.unauthorized);
      // A senderId that could never have been accepted is simply not found (and never reaches the database).
      collection = isSenderId(senderId)
        ? await CollectionRepository.findBySenderId(this.db, merchant.id, senderId)
        : null;
      if (!collection) throw new RequestRejected(CollectionCodes.notFound);
    }
    return this.wire(collection);
  }

  /** The UPI intent link of one of the merchant's collections (for a QR code), or null if it is not theirs. */
  async intentUrlOf(merchant: Merchant, txnId: string): Promise<string | null> {
    const c = await CollectionRepository.findById(this.db, txnId);
    if (!c || c.merchantId !== merchant.id) return null;
    return intentUrlOf(c);
  }

  /**
   * Payee address and name. A `vpa` in the request: in the sandbox any well-formed address, in live mode only one
   * the merchant has registered (its configured `upi_vpa`). Without one: the merchant's configured address, and
   * in the sandbox a default derived from the merchant.
   */
  private payee(merchant: Merchant, vpa: string | null): { payeeVpa: string; payeeName: string } {
    const payeeName = merchant.upiPayeeName ?? merchant.name;
    if (vpa !== null) {
      if (this.options.mode === 'live' && !registeredVpas(merchant).includes(vpa.toLowerCase())) {
        throw new RequestRejected(
          withMessage(CollectionCodes.invalidField, "Invalid vpa: not one of the merchant's registered UPI addresses"),
        );
      }
      return { payeeVpa: vpa, payeeName };
    }
    if (merchant.upiVpa) return { payeeVpa: merchant.upiVpa, payeeName };
    if (this.options.mode === 'live') {
      throw new RequestRejected(
        withMessage(CollectionCodes.invalidField, 'No UPI payee address is configured for this merchant (upi_vpa)'),
      );
    }
    return { payeeVpa: `${merchant.id.toLowerCase()}@payrail`, payeeName };
  }

  /** Admin: one collection by id, or null (a malformed id is simply not found). */
  async find(txnId: string): Promise<Collection | null> {
    return isId('collection', txnId) ? CollectionRepository.findById(this.db, txnId) : null;
  }

  page(query: CollectionPageQuery): Promise<Collection[]> {
    return CollectionRepository.page(this.db, query);
  }

  /** The collection's history (docs/operator/operations.md), or null when there is no such collection. */
  async timeline(txnId: string): Promise<Timeline | null> {
    const c = isId('collection', txnId) ? await CollectionRepository.findById(this.db, txnId) : null;
    if (!c) return null;
    return buildTimeline(this.db, c.id, c.createdAt, 'merchant');
  }

  /**
   * Sandbox simulation of one of the merchant's collections (the simulate route and the payment page's buttons):
   * 4105 malformed txnId, 4104 not found or another merchant's, 4113 a move the lifecycle refuses.
   */
  async simulate(
    merchantId: string,
    txnId: string,
    outcome: FinalOutcome,
    utr?: string,
    actor = 'merchant',
  ): Promise<CollectionTransactionWire> {
    if (!isId('collection', txnId)) throw new RequestRejected(CollectionCodes.malformedTxnId);
    const routed = await CollectionRepository.findById(this.db, txnId);
    if (routed?.connector === 'upstream' && routed.merchantId === merchantId) {
      // Only the sandbox connector makes outcomes up: this one is paid (or not) at the upstream.
      throw new RequestRejected(
        withMessage(
          CollectionCodes.transitionNotAllowed,
          'The collection is paid at the upstream provider: its outcome comes from there',
        ),
      );
    }
    const result = await this.applyOutcome(txnId, outcome, { utr, merchantId, actor });
    if (!result.ok && result.reason === 'not_found') throw new RequestRejected(CollectionCodes.notFound);
    if (!result.ok) {
      throw new RequestRejected(
        withMessage(
          CollectionCodes.transitionNotAllowed,
          `The collection is ${result.status} and cannot become ${outcome}`,
        ),
      );
    }
    return this.wire(result.collection);
  }

  /** The hosted payment page of a collection, by its page token; null when no collection has it. */
  async paymentPage(token: string): Promise<PaymentPageView | null> {
    const c = isPaymentPageToken(token) ? await CollectionRepository.findByPageToken(this.db, token) : null;
    if (!c) return null;
    return {
      payeeName: c.payeeName,
      amount: formatPaise(c.amount),
      remarks: c.remarks,
      intentUrl: intentUrlOf(c),
      status: c.status,
      sandbox: this.options.mode === 'sandbox',
    };
  }

  /** The status the payment page polls: nothing but what the page shows. */
  async paymentPageStatus(token: string): Promise<PaymentPageStatus | null> {
    const c = isPaymentPageToken(token) ? await CollectionRepository.findByPageToken(this.db, token) : null;
    return c ? { status: c.status, final: isFinal(c.status) } : null;
  }

  /**
   * The payment page's sandbox buttons: the same path as the sandbox simulate route, for the collection the page
   * token names. Sandbox only (the route does not exist in live mode; this refuses too, as a second guard).
   */
  async simulateFromPaymentPage(token: string, outcome: 'SUCCESS' | 'FAILED'): Promise<PaymentPageStatus> {
    const c = isPaymentPageToken(token) ? await CollectionRepository.findByPageToken(this.db, token) : null;
    if (!c || this.options.mode !== 'sandbox') throw new RequestRejected(CollectionCodes.notFound);
    const moved = await this.simulate(c.merchantId, c.id, outcome, undefined, 'payer:payment-page');
    return { status: moved.status, final: isFinal(moved.status) };
  }

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

  private async move(
    tx: Queryable,
    current: Collection,
    to: CollectionStatus,
    details: { utr?: string; message?: string; reason?: string; actor?: string },
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
      reason: details.reason,
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
