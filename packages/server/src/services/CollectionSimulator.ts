import { CollectionCodes, isId, withMessage, type CollectionTransactionWire } from '@payrail/protocol';
import { toCollectionWire } from '../domain/Collection.ts';
import { RequestRejected } from '../domain/RequestRejected.ts';
import type { Database } from '../store/Database.ts';
import { CollectionRepository } from '../store/repositories/CollectionRepository.ts';
import type { CollectionOutcomes, FinalOutcome } from './CollectionOutcomes.ts';

/**
 * The sandbox's stand-in for the payer's bank: the simulate route and the payment page's buttons report an
 * outcome as a bank would, through CollectionOutcomes like every other report.
 */
export class CollectionSimulator {
  constructor(
    private readonly db: Database,
    private readonly outcomes: CollectionOutcomes,
    /** External base URL of payment-page links: the answer carries the collection with its paymentUrl. */
    private readonly publicUrl: () => string,
  ) {}

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
    const result = await this.outcomes.applyOutcome(txnId, outcome, { utr, merchantId, actor });
    if (!result.ok && result.reason === 'not_found') throw new RequestRejected(CollectionCodes.notFound);
    if (!result.ok) {
      throw new RequestRejected(
        withMessage(
          CollectionCodes.transitionNotAllowed,
          `The collection is ${result.status} and cannot become ${outcome}`,
        ),
      );
    }
    return toCollectionWire(result.collection, this.publicUrl());
  }
}
