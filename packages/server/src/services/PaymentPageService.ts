import { CollectionCodes, formatPaise, type CollectionStatus } from '@payrail/protocol';
import type { Mode } from '../config.ts';
import type { Collection } from '../domain/Collection.ts';
import { collectionIntentUrl } from '../domain/collectionIntentUrl.ts';
import { isPaymentPageToken } from '../domain/paymentPageToken.ts';
import { RequestRejected } from '../domain/RequestRejected.ts';
import type { Database } from '../store/Database.ts';
import { CollectionRepository } from '../store/repositories/CollectionRepository.ts';
import type { CollectionSimulator } from './CollectionSimulator.ts';

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

const isFinal = (status: CollectionStatus) => status === 'SUCCESS' || status === 'FAILED';

/**
 * The hosted payment page of a collection, for whoever holds its link: the collection is found by its page token
 * alone, so nothing here reveals more than a payer needs.
 */
export class PaymentPageService {
  constructor(
    private readonly db: Database,
    private readonly simulator: CollectionSimulator,
    private readonly mode: Mode,
  ) {}

  /** The page of a collection, by its page token; null when no collection has it. */
  async view(token: string): Promise<PaymentPageView | null> {
    const c = await this.byToken(token);
    if (!c) return null;
    return {
      payeeName: c.payeeName,
      amount: formatPaise(c.amount),
      remarks: c.remarks,
      intentUrl: collectionIntentUrl(c),
      status: c.status,
      sandbox: this.mode === 'sandbox',
    };
  }

  /** The status the page polls: nothing but what the page shows. */
  async status(token: string): Promise<PaymentPageStatus | null> {
    const c = await this.byToken(token);
    return c ? { status: c.status, final: isFinal(c.status) } : null;
  }

  /**
   * The page's sandbox buttons: the same path as the sandbox simulate route, for the collection the page token
   * names. Sandbox only (the route does not exist in live mode; this refuses too, as a second guard).
   */
  async simulate(token: string, outcome: 'SUCCESS' | 'FAILED'): Promise<PaymentPageStatus> {
    const c = await this.byToken(token);
    if (!c || this.mode !== 'sandbox') throw new RequestRejected(CollectionCodes.notFound);
    const moved = await this.simulator.simulate(c.merchantId, c.id, outcome, undefined, 'payer:payment-page');
    return { status: moved.status, final: isFinal(moved.status) };
  }

  private async byToken(token: string): Promise<Collection | null> {
    return isPaymentPageToken(token) ? CollectionRepository.findByPageToken(this.db, token) : null;
  }
}
