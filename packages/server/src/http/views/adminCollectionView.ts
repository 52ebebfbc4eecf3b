import type { CollectionTransactionWire } from '@payrail/protocol';
import type { Collection } from '../../domain/Collection.ts';

/** A collection as the operator and the merchant console read it: its wire form with the admin-only fields. */
export const adminCollectionView = (c: Collection, wire: CollectionTransactionWire) => ({
  ...wire,
  merchant_id: c.merchantId,
  callback_url: c.callbackUrl,
  scheme: c.scheme,
  psp_reference: c.pspReference,
});
