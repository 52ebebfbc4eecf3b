import { isId, type CollectionTransactionWire } from '@payrail/protocol';
import { toCollectionWire, type Collection } from '../domain/Collection.ts';
import type { Database } from '../store/Database.ts';
import { CollectionRepository, type CollectionPageQuery } from '../store/repositories/CollectionRepository.ts';
import { inScope, scopedQuery, type MerchantScope } from './MerchantScope.ts';
import { buildTimeline, type Timeline } from './transactionTimeline.ts';

/**
 * Collections as the operator and the merchant console read them: by id, by page, with their history. The reads
 * take a MerchantScope for the merchant console: another merchant's collection is not there.
 */
export class CollectionReads {
  constructor(
    private readonly db: Database,
    /** External base URL of payment-page links (PAYRAIL_PUBLIC_URL, or the listen address once known). */
    private readonly publicUrl: () => string,
  ) {}

  /** The collection object as every answer and webhook carries it (with paymentUrl). */
  wire(c: Collection): CollectionTransactionWire {
    return toCollectionWire(c, this.publicUrl());
  }

  /** One collection by id, or null (a malformed id is simply not found). */
  async find(txnId: string, scope?: MerchantScope): Promise<Collection | null> {
    const c = isId('collection', txnId) ? await CollectionRepository.findById(this.db, txnId) : null;
    return c && inScope(scope, c.merchantId) ? c : null;
  }

  page(query: CollectionPageQuery, scope?: MerchantScope): Promise<Collection[]> {
    return CollectionRepository.page(this.db, scopedQuery(query, scope));
  }

  /** The collection's history (docs/operator/operations.md), or null when there is no such collection. */
  async timeline(txnId: string, scope?: MerchantScope): Promise<Timeline | null> {
    const c = await this.find(txnId, scope);
    if (!c) return null;
    return buildTimeline(this.db, c.id, c.createdAt, 'merchant');
  }
}
