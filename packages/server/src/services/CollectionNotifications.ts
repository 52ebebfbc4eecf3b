import { parseCollectionNotification } from '../domain/pspNotification.ts';
import type { Database } from '../store/Database.ts';
import { CollectionRepository } from '../store/repositories/CollectionRepository.ts';
import type { CollectionOutcomes } from './CollectionOutcomes.ts';
import { PSP_ACTOR, type NotificationResult } from './NotificationResult.ts';

/**
 * The entry point for what a PSP or bank reports about a collection (docs/operator/live-mode.md): a PSP integration calls
 * `report` (in-process, exposed as `server.collectionNotifications`) or the signed route
 * `POST /psp/v1/collections/notify` does. The outcome goes through `CollectionOutcomes.applyOutcome`, the same
 * path as the sandbox simulation and the operator's resolution: credited once, webhooks, history. Refusals (an
 * amount that differs, a transition the table refuses, a conflicting UTR or reference) are recorded in the
 * collection's history and change nothing else.
 */
export class CollectionNotifications {
  constructor(
    private readonly db: Database,
    private readonly outcomes: CollectionOutcomes,
  ) {}

  async report(input: unknown, actor: string = PSP_ACTOR): Promise<NotificationResult> {
    const parsed = parseCollectionNotification(input);
    if (!parsed.ok) return { kind: 'invalid', message: parsed.error };
    const n = parsed.value;
    const txnId = n.txnId ?? (await CollectionRepository.findIdByPspReference(this.db, n.reference as string));
    const current = txnId ? await CollectionRepository.findById(this.db, txnId) : null;
    if (!current) return { kind: 'not_found' };
    // News older than what is recorded (PENDING after the final status): no change, and nothing to report.
    // A final status never changes, so reading it without the lock is safe.
    if (n.status === 'PENDING' && (current.status === 'SUCCESS' || current.status === 'FAILED')) {
      return { kind: 'unchanged', subjectId: current.id, status: current.status };
    }
    const result = await this.outcomes.applyOutcome(current.id, n.status, {
      utr: n.utr,
      amountPaid: n.amountPaid,
      pspReference: n.txnId ? n.reference : undefined,
      message: n.status !== 'SUCCESS' ? n.reason : undefined,
      reason: n.reason,
      actor,
      recordRefusals: true,
    });
    if (result.ok) {
      return {
        kind: result.changed ? 'applied' : 'unchanged',
        subjectId: result.collection.id,
        status: result.collection.status,
      };
    }
    if (result.reason === 'not_found') return { kind: 'not_found' };
    return {
      kind: 'refused',
      code: result.reason,
      subjectId: current.id,
      status: result.status,
      message: result.message,
    };
  }
}
