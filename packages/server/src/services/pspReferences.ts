import type { Queryable } from '../store/Database.ts';
import { CollectionRepository } from '../store/repositories/CollectionRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';

/**
 * What a PSP reference already belongs to besides `self` (the collection or payout the notification names): a
 * collection that keeps it as its PSP reference, or a payout whose bank transfer carries it as rail reference. One
 * reference for two payments means the sender mixed them up (or reuses another item's reference on purpose), so
 * such a notification is refused as `reference_conflict` and nothing of it is kept.
 */
export async function referenceOwnedElsewhere(
  q: Queryable,
  reference: string,
  self: string,
): Promise<'collection' | 'payout' | null> {
  const collection = await CollectionRepository.findIdByPspReference(q, reference);
  if (collection !== null && collection !== self) return 'collection';
  return (await PayoutRepository.findIdByRailReference(q, reference, self)) !== null ? 'payout' : null;
}

/**
 * The history entry of such a refusal. It names the reference but not the other item, whose id the history's
 * readers need not see; the same notification again gives the same text, which is what keeps it recorded once.
 */
export const referenceConflictMessage = (reference: string, owner: 'collection' | 'payout') =>
  `notified reference ${reference} already belongs to another ${owner}; not applied`;
