import { isId, PROVIDER_SIGNATURE_HEADER, BODY_SIGNATURE_HEADER, verifyBodySignature } from '@payrail/protocol';
import type { UpstreamClient } from '../rails/upstream/UpstreamClient.ts';
import { upstreamOutcome } from '../rails/upstream/UpstreamConnector.ts';
import type { Database } from '../store/Database.ts';
import { JobRepository } from '../store/repositories/JobRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import type { BankNotifications } from './BankNotifications.ts';

/** What became of an upstream webhook (the route answers 200 for the first three, 401 or 400 otherwise). */
export type UpstreamEventResult =
  | { kind: 'applied' | 'unchanged' | 'ignored'; payoutId?: string }
  | { kind: 'unverified' }
  | { kind: 'invalid'; message: string };

/**
 * Webhooks from the upstream provider (PAYRAIL_UPSTREAM_WEBHOOK_SECRET). A verified event is applied exactly like a
 * poll of the same payout, through BankNotifications, so a repeat or an event older than what is recorded changes
 * nothing. An event that does not verify changes nothing either; if its `data` opens with Payrail's upstream
 * credentials and names one of our payouts, that payout is polled now instead (the upstream is asked, not believed).
 */
export class UpstreamWebhooks {
  constructor(
    private readonly db: Database,
    private readonly client: UpstreamClient,
    private readonly secret: string,
    private readonly notifications: BankNotifications,
  ) {}

  async receive(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<UpstreamEventResult> {
    const signature = headers[BODY_SIGNATURE_HEADER] ?? headers[PROVIDER_SIGNATURE_HEADER];
    const verified = verifyBodySignature(this.secret, rawBody, signature);
    const payout = this.payoutOf(rawBody);
    if (!verified) {
      if (payout) await this.pollSoon(payout.id);
      return { kind: 'unverified' };
    }
    if (!payout) return { kind: 'invalid', message: 'The event carries no payout of ours (data, sender_id)' };
    const outcome = upstreamOutcome(payout.data);
    if (!outcome) return { kind: 'ignored', payoutId: payout.id };
    const result = await this.notifications.report(payout.id, outcome, 'rail:upstream');
    if (result === 'not_found') return { kind: 'ignored', payoutId: payout.id };
    return { kind: result === 'moved' ? 'applied' : 'unchanged', payoutId: payout.id };
  }

  /** The event's payout: its `data` decrypted with Payrail's upstream credentials, joined on `sender_id`. */
  private payoutOf(rawBody: Buffer): { id: string; data: Record<string, unknown> } | null {
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
    return typeof id === 'string' && isId('payout', id) ? { id, data } : null;
  }

  /** Asks the upstream about the payout at the next worker pass, if it is still open on the upstream connector. */
  private async pollSoon(payoutId: string): Promise<void> {
    const payout = await PayoutRepository.findById(this.db, payoutId);
    if (payout?.rail !== 'upstream' || !['PROCESSING', 'PENDING'].includes(payout.status)) return;
    await JobRepository.schedule(this.db, 'payout.advance', payout.id, 0);
  }
}
