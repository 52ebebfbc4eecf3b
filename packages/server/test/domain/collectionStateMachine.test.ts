import { COLLECTION_STATUSES, type CollectionStatus } from '@payrail/protocol';
import { describe, expect, it } from 'vitest';
import {
  canCollectionTransition,
  COLLECTION_STATUS_MESSAGE,
  COLLECTION_TRANSITIONS,
  collectionEventType,
} from '../../src/domain/collectionStateMachine.ts';

/** The decided lifecycle: INITIATED → SUCCESS / FAILED / PENDING; PENDING → SUCCESS / FAILED; nothing else. */
const ALLOWED = new Set([
  'INITIATED>SUCCESS',
  'INITIATED>FAILED',
  'INITIATED>PENDING',
  'PENDING>SUCCESS',
  'PENDING>FAILED',
]);

const pairs: [CollectionStatus, CollectionStatus][] = COLLECTION_STATUSES.flatMap((from) =>
  COLLECTION_STATUSES.map((to) => [from, to] as [CollectionStatus, CollectionStatus]),
);

describe('collection state machine', () => {
  it('knows exactly the four statuses of the provider interface', () => {
    expect([...COLLECTION_STATUSES].sort()).toEqual(['FAILED', 'INITIATED', 'PENDING', 'SUCCESS']);
    expect(Object.keys(COLLECTION_TRANSITIONS).sort()).toEqual([...COLLECTION_STATUSES].sort());
  });

  it.each(pairs)('%s → %s is allowed only when decided', (from, to) => {
    expect(canCollectionTransition(from, to)).toBe(ALLOWED.has(`${from}>${to}`));
  });

  it('has final states SUCCESS and FAILED and never returns to INITIATED', () => {
    expect(COLLECTION_TRANSITIONS.SUCCESS).toEqual([]);
    expect(COLLECTION_TRANSITIONS.FAILED).toEqual([]);
    for (const from of COLLECTION_STATUSES) expect(canCollectionTransition(from, 'INITIATED')).toBe(false);
  });

  it('names a webhook event for every status a collection can move to, and none for INITIATED', () => {
    expect(collectionEventType('PENDING')).toBe('collection.pending');
    expect(collectionEventType('SUCCESS')).toBe('collection.success');
    expect(collectionEventType('FAILED')).toBe('collection.failed');
    expect(collectionEventType('INITIATED')).toBeNull();
  });

  it('has a non-empty, distinct status message for every status', () => {
    const messages = COLLECTION_STATUSES.map((s) => COLLECTION_STATUS_MESSAGE[s]);
    for (const m of messages) expect(m).toMatch(/\S/);
    expect(new Set(messages).size).toBe(messages.length);
  });
});
