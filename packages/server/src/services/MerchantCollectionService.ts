import {
  CollectionCodes,
  isId,
  isSenderId,
  withMessage,
  type CollectionTransactionWire,
  type Scheme,
} from '@payrail/protocol';
import type { Clock } from '../clock.ts';
import type { Mode } from '../config.ts';
import { toCollectionWire, type Collection } from '../domain/Collection.ts';
import { collectionIntentUrl } from '../domain/collectionIntentUrl.ts';
import { parseCollectionFields } from '../domain/collectionRequest.ts';
import { COLLECTION_STATUS_MESSAGE } from '../domain/collectionStateMachine.ts';
import { newId } from '../domain/ids.ts';
import { registeredVpas, type Merchant } from '../domain/Merchant.ts';
import { newPaymentPageToken } from '../domain/paymentPageToken.ts';
import { RequestRejected } from '../domain/RequestRejected.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { CollectionRepository } from '../store/repositories/CollectionRepository.ts';
import { JobRepository } from '../store/repositories/JobRepository.ts';
import { PricingRepository } from '../store/repositories/PricingRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';
import type { CallbackPolicy } from './CallbackPolicy.ts';

/** A lookup of collection status: the query of the GET form, or the decrypted payload of the POST form. */
export interface CollectionLookup {
  txnId?: unknown;
  senderId?: unknown;
}

/** An identifier counts as given unless absent, null or empty (`?txnId=` is the same as no txnId). */
const given = (value: unknown) => value !== undefined && value !== null && value !== '';

export interface MerchantCollectionServiceOptions {
  mode: Mode;
  ttlMs: number;
  /** External base URL of payment-page links (PAYRAIL_PUBLIC_URL, or the listen address once known). */
  publicUrl: () => string;
  /** The composition root's clock. */
  clock: Clock;
  /** Set when collections are routed to the upstream connector (UpstreamCollectionService.ts). */
  upstream?: UpstreamCollectionRouting | null;
  /** PAYRAIL_REQUIRE_PRICING: a merchant without a pricing plan is refused with 4015. */
  requirePricing?: boolean;
}

/** Collections routed upstream (docs/operator/connectors.md, "Collections through the upstream"): a copy at the upstream, whose links the payer is sent to. */
export interface UpstreamCollectionRouting {
  /** In the creation's transaction: the follow-up job, in place of the local expiry (the upstream decides). */
  scheduleFollowUp(tx: Queryable, c: Collection): Promise<void>;
  /** Creates and records the upstream's copy; throws RequestRejected (ours FAILED) when it cannot. */
  link(c: Collection): Promise<Collection>;
}

/**
 * UPI collections as the merchant API sees them: creation with an intent link and a hosted payment page, status
 * (both forms, one set of rules) and the intent link of a QR code, each within the calling merchant's own
 * collections. Outcomes are not the merchant's to set: they go through CollectionOutcomes.
 */
export class MerchantCollectionService {
  constructor(
    private readonly db: Database,
    private readonly callbackPolicy: CallbackPolicy,
    private readonly options: MerchantCollectionServiceOptions,
  ) {}

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
    if (this.options.requirePricing && !(await PricingRepository.exists(this.db, merchant.id))) {
      throw new RequestRejected(CollectionCodes.commercialsMissing);
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
      fee: 0n,
      tax: 0n,
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
    return collectionIntentUrl(c);
  }

  private wire(c: Collection): CollectionTransactionWire {
    return toCollectionWire(c, this.options.publicUrl());
  }

  /** The object of a creation answer (and of a duplicate's 4112): the collection plus its intent link. */
  private createdWire(c: Collection): CollectionTransactionWire {
    return { ...this.wire(c), intentUrl: collectionIntentUrl(c) };
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
}
