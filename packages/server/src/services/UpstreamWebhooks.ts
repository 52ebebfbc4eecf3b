import { isId, PROVIDER_SIGNATURE_HEADER, BODY_SIGNATURE_HEADER, verifyBodySignature } from '@payrail/protocol';
import type { UpstreamClient } from '../rails/upstream/UpstreamClient.ts';
import { upstreamOutcome } from '../rails/upstream/UpstreamConnector.ts';
import type { Database } from '../store/Database.ts';
import { JobRepository } from '../store/repositories/JobRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import { UPSTREAM_EVENTS, type BankNotifications } from './BankNotifications.ts';
import type { UpstreamCollectionService } from './UpstreamCollectionService.ts';

/** What became of an upstream webhook (the route answers 200 for the first three, 401 or 400 otherwise). */
export type UpstreamEventResult =
  /** `payoutId`: the payout's id, or the collection's txnId for an event about a collection. */
  | { kind: 'applied' | 'unchanged' | 'ignored'; payoutId?: string }
  /** The event does not match what Payrail sent (docs/operator/exceptions.md): nothing moved, an exception instead. */
  | { kind: 'refused'; payoutId: string; exceptionId: string }
  | { kind: 'unverified' }
  | { kind: 'invalid'; message: string };

/**
 * Webhooks from the upstream provider (PAYRAIL_UPSTREAM_WEBHOOK_SECRET). A verified event is applied exactly like a
 * poll of the same payout, through BankNotifications, so a repeat or an event older than what is recorded changes
 * nothing; one about a payout of another connector, another transfer (`transaction_id`) or another amount is
 * refused into the exceptions queue. An event that does not verify changes nothing either; if its `data` opens with Payrail's upstream
 * credentials and names one of our payouts, that payout is polled now instead (the upstream is asked, not believed).
 * Collections routed upstream are the same: joined on `senderId` (our txnId), applied through the collection state
 * machine (UpstreamCollectionService), polled at once when the event does not verify.
 */
export class UpstreamWebhooks {
  constructor(
    private readonly db: Database,
    private readonly client: UpstreamClient,
    private readonly secret: string,
    private readonly notifications: BankNotifications,
    private readonly collections: UpstreamCollectionService | null = null,
  ) {}

  async receive(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<UpstreamEventResult> {
    const signature = headers[BODY_SIGNATURE_HEADER] ?? headers[PROVIDER_SIGNATURE_HEADER];
    const verified = verifyBodySignature(this.secret, rawBody, signature);
    const subject = this.subjectOf(rawBody);
    const payout = subject?.kind === 'payout' ? subject : null;
    if (!verified) {
      if (payout) await this.pollSoon(payout.id);
      if (subject?.kind === 'collection') await this.collections?.pollSoon(subject.id);
      return { kind: 'unverified' };
    }
    if (subject?.kind === 'collection' && this.collections) {
      const result = await this.collections.receive(subject.id, subject.data);
      return { kind: result, payoutId: subject.id };
    }
    if (!payout) return { kind: 'invalid', message: 'The event carries no payout or collection of ours' };
    const outcome = upstreamOutcome(payout.data);
    if (!outcome) return { kind: 'ignored', payoutId: payout.id };
    // Checked against what Payrail sent before anything moves: an `upstream` payout, its transfer, its amount.
    const result = await this.notifications.report(payout.id, outcome, UPSTREAM_EVENTS, 'rail:upstream');
    if (result.kind === 'not_found') return { kind: 'ignored', payoutId: payout.id };
    if (result.kind === 'refused') return { kind: 'refused', payoutId: payout.id, exceptionId: result.exceptionId };
    return { kind: result.kind === 'moved' ? 'applied' : 'unchanged', payoutId: payout.id };
  }

  /**
   * The event's subject: its `data` decrypted with Payrail's upstream credentials, joined on `sender_id` (a payout
   * of ours) or `senderId` (a collection of ours).
   */
  private subjectOf(
    rawBody: Buffer,
  ): { kind: 'payout' | 'collection'; id: string; data: Record<string, unknown> } | null {
    let event: unknown;
    try {
      event = JSON.parse(rawBody.toString('utf8'));
    } catch {
      return null;
    }
    const encrypted = (event as { data?: unknown } | null)?.data;
    let data: Record<string, unknown>;
    try {
      data = this.client.open(encrypted);
    } catch {
      return null;
    }
    const id = data.sender_id;
    if (typeof id === 'string' && isId('payout', id)) return { kind: 'payout', id, data };
    const txnId = data.senderId;
    if (typeof txnId === 'string' && isId('collection', txnId)) return { kind: 'collection', id: txnId, data };
    return null;
  }

  /** Asks the upstream about the payout at the next worker pass, if it is still open on the upstream connector. */
  private async pollSoon(payoutId: string): Promise<void> {
    const payout = await PayoutRepository.findById(this.db, payoutId);
    if (payout?.rail !== 'upstream' || !['PROCESSING', 'PENDING'].includes(payout.status)) return;
    await JobRepository.schedule(this.db, 'payout.advance', payout.id, 0);
  }
}
