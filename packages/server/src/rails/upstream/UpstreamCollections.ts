import { formatPaise, parseRupees } from '@payrail/protocol';
import type { UpstreamSettings } from '../../connectorConfig.ts';
import type { Collection } from '../../domain/Collection.ts';
import { upiIntentUrl } from '../../domain/upiIntent.ts';
import type { UpstreamAnswer, UpstreamClient } from './UpstreamClient.ts';
import { UPSTREAM_WEBHOOK_PATH } from './UpstreamConnector.ts';

/** An answer's `data`, when it is an upstream collection object. */
export type UpstreamCollection = Record<string, unknown>;

/** The links of the upstream's copy of one of our collections, to record on ours. */
export interface UpstreamCopy {
  txnId: string;
  intentUrl: string;
  paymentUrl: string;
  /** The payee address the upstream collects to, when it says. */
  payeeVpa?: string;
}

/** What an upstream collection's status says of ours: an outcome, with the upstream's UTR or message. */
export interface UpstreamCollectionReport {
  outcome: 'PENDING' | 'SUCCESS' | 'FAILED';
  details: { message?: string; utr?: string };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isHttpUrl = (v: unknown): v is string => typeof v === 'string' && /^https?:\/\/\S+$/i.test(v) && v.length <= 2048;

/** An upstream answer in one line, for a collection's reason or an error. */
export const describeUpstreamAnswer = (a: UpstreamAnswer) =>
  `upstream ${a.code}: ${a.message || 'no message'}`.slice(0, 255);

/**
 * The upstream's side of collections routed to the upstream connector (PAYRAIL_CONNECTOR=upstream;
 * docs/operator/connectors.md): Payrail creates a copy of its collection in Payrail's account at the upstream, with
 * `senderId` = our txnId, and reads it back by that senderId. Asked, it answers: what the answers do to our
 * collection (recording the copy, applying its outcome, following it up) is services/UpstreamCollectionService.ts.
 */
export class UpstreamCollections {
  constructor(
    private readonly client: UpstreamClient,
    private readonly settings: UpstreamSettings,
    /** PAYRAIL_PUBLIC_URL (or the listen address): the upstream's webhooks come back to it. */
    private readonly publicUrl: () => string | undefined,
  ) {}

  /** Asks the upstream to create its copy of a collection of ours. Throws UpstreamUnreachable when it cannot. */
  create(c: Collection): Promise<UpstreamAnswer> {
    return this.client.call('POST', '/collection/v1/initiate', this.creation(c), 4008);
  }

  /** The upstream's copy, by senderId = our txnId (the POST form: the one existing integrations send). */
  read(txnId: string): Promise<UpstreamAnswer> {
    return this.client.call('POST', '/collection/v1/status', { senderId: txnId }, 4008);
  }

  /** The creation plaintext: our txnId as senderId, Payrail's upstream wallet, our callback when webhooks are on. */
  private creation(c: Collection): Record<string, unknown> {
    const base = this.publicUrl()?.replace(/\/+$/, '');
    return {
      senderId: c.id,
      requestAmount: formatPaise(c.amount),
      walletId: this.settings.walletId,
      txnType: c.txnType,
      ...(c.txnType === 'COLLECT' ? { payerVpa: c.payerVpa } : {}),
      ...(c.remarks ? { remarks: c.remarks } : {}),
      ...(c.channel ? { channel: c.channel } : {}),
      ...(this.settings.webhookSecret && base ? { callbackUrl: `${base}${UPSTREAM_WEBHOOK_PATH}` } : {}),
    };
  }
}

/** The upstream's answer is not a usable copy of our collection: it is not created twice, it is failed here. */
export class NotOurCopy extends Error {}

/**
 * The links of the upstream's copy `data` of our collection `c`; NotOurCopy when it is not one (no txnId or
 * paymentUrl, another senderId, another amount). A status answer carries no intent link: the link to the same
 * payee, amount and reference is built from it.
 */
export function upstreamCopyOf(c: Collection, data: UpstreamCollection): UpstreamCopy {
  const txnId = str(data.txnId);
  const paymentUrl = data.paymentUrl;
  if (!txnId || txnId.length > 100 || !isHttpUrl(paymentUrl)) {
    throw new NotOurCopy('the upstream answered without a txnId and paymentUrl');
  }
  if (data.senderId !== undefined && data.senderId !== c.id) throw new NotOurCopy('the upstream copy is not ours');
  const amount = parseRupees(data.requestAmount);
  if (amount !== null && amount !== c.amount) {
    throw new NotOurCopy(`the upstream copy is for ${formatPaise(amount)}, not ${formatPaise(c.amount)}`);
  }
  const vpa = str(data.vpa);
  const intentUrl = /^upi:\/\/pay\?/i.test(str(data.intentUrl))
    ? str(data.intentUrl)
    : upiIntentUrl({
        payeeVpa: vpa || c.payeeVpa,
        payeeName: c.payeeName,
        amount: c.amount,
        txnId,
        remarks: c.remarks,
      });
  return { txnId, intentUrl, paymentUrl, ...(vpa ? { payeeVpa: vpa } : {}) };
}

/**
 * The upstream collection's status as an outcome of ours: INITIATED → nothing new, PENDING → PENDING, SUCCESS →
 * SUCCESS with the upstream's UTR, FAILED → FAILED with the upstream's message.
 */
export function upstreamCollectionOutcome(data: UpstreamCollection): UpstreamCollectionReport | null {
  const message = str(data.statusMessage);
  switch (data.status) {
    case 'PENDING':
      return { outcome: 'PENDING', details: message ? { message: `upstream: ${message}`.slice(0, 255) } : {} };
    case 'SUCCESS': {
      const utr = str(data.utr);
      return { outcome: 'SUCCESS', details: utr ? { utr } : {} };
    }
    case 'FAILED':
      return { outcome: 'FAILED', details: { message: `upstream: ${message || 'failed'}`.slice(0, 255) } };
    default:
      return null;
  }
}
