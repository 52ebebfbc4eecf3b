import { isId, parseRupees } from '@payrail/protocol';
import { isUtr } from './utr.ts';

/**
 * What a PSP or bank tells Payrail about a collection or a payout (docs/operator/live-mode.md). Parsed here, with one
 * set of rules for the HTTP routes and for in-process connectors; fields Payrail does not know are ignored, so a
 * PSP may send its own alongside.
 */
export interface CollectionNotification {
  /** Payrail's txnId (the `tr` of the intent link); or else the PSP's reference, known from an earlier one. */
  txnId?: string;
  /** The PSP's own reference of the payment: kept on the collection the first time it comes with a txnId. */
  reference?: string;
  status: 'SUCCESS' | 'FAILED' | 'PENDING';
  utr?: string;
  /** What the payer paid, in paise (required with SUCCESS: no credit without the amount confirmed). */
  amountPaid?: bigint;
  reason?: string;
}

export interface PayoutNotification {
  /** The payout id, which the bank received as the submission's idempotency key. */
  transactionId: string;
  /** The bank's or PSP's own reference of the transfer: checked against other items', not kept. */
  reference?: string;
  /** RETURNED: the beneficiary bank sent back the money of a SUCCESS payout (with the reason, required). */
  status: 'PROCESSING' | 'PENDING' | 'SUCCESS' | 'FAILED' | 'RETURNED';
  utr?: string;
  /** The amount the bank transferred, in paise; checked against the payout's when given. */
  amount?: bigint;
  reason?: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const REFERENCE = /^[\x21-\x7e]{1,100}$/;
const MAX_REASON = 255;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Free text made storable: no control characters, bounded. */
function reasonOf(value: unknown): string | undefined | null {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') return null;
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return clean ? [...clean].slice(0, MAX_REASON).join('') : undefined;
}

function amountOf(value: unknown): bigint | undefined | null {
  if (value === undefined || value === null) return undefined;
  return parseRupees(value);
}

export function parseCollectionNotification(body: unknown): Parsed<CollectionNotification> {
  if (!isRecord(body)) return { ok: false, error: 'the body must be a JSON object' };
  const { txnId, reference, status, utr } = body;
  if (txnId !== undefined && !isId('collection', txnId)) {
    return { ok: false, error: 'txnId is not a Payrail collection id' };
  }
  if (reference !== undefined && (typeof reference !== 'string' || !REFERENCE.test(reference))) {
    return { ok: false, error: 'reference must be 1-100 printable ASCII characters without spaces' };
  }
  if (txnId === undefined && reference === undefined) return { ok: false, error: 'txnId or reference is required' };
  if (status !== 'SUCCESS' && status !== 'FAILED' && status !== 'PENDING') {
    return { ok: false, error: 'status must be SUCCESS, FAILED or PENDING' };
  }
  if (utr !== undefined && !isUtr(utr)) return { ok: false, error: 'utr must be 1-40 printable ASCII characters' };
  if (status === 'SUCCESS' && utr === undefined) return { ok: false, error: 'a SUCCESS needs the utr' };
  const amountPaid = amountOf(body.amount);
  if (amountPaid === null) return { ok: false, error: 'amount must be rupees as decimal text, e.g. "250.50"' };
  if (status === 'SUCCESS' && amountPaid === undefined) return { ok: false, error: 'a SUCCESS needs the amount paid' };
  const reason = reasonOf(body.reason);
  if (reason === null) return { ok: false, error: 'reason must be text' };
  return {
    ok: true,
    value: {
      ...(txnId === undefined ? {} : { txnId: txnId as string }),
      ...(reference === undefined ? {} : { reference }),
      status,
      ...(utr === undefined ? {} : { utr }),
      ...(amountPaid === undefined ? {} : { amountPaid }),
      ...(reason === undefined ? {} : { reason }),
    },
  };
}

export function parsePayoutNotification(body: unknown): Parsed<PayoutNotification> {
  if (!isRecord(body)) return { ok: false, error: 'the body must be a JSON object' };
  const { transactionId, reference, status, utr } = body;
  if (!isId('payout', transactionId)) return { ok: false, error: 'transactionId must be a Payrail payout id' };
  if (reference !== undefined && (typeof reference !== 'string' || !REFERENCE.test(reference))) {
    return { ok: false, error: 'reference must be 1-100 printable ASCII characters without spaces' };
  }
  if (
    status !== 'PROCESSING' &&
    status !== 'PENDING' &&
    status !== 'SUCCESS' &&
    status !== 'FAILED' &&
    status !== 'RETURNED'
  ) {
    return { ok: false, error: 'status must be PROCESSING, PENDING, SUCCESS, FAILED or RETURNED' };
  }
  if (utr !== undefined && !isUtr(utr)) return { ok: false, error: 'utr must be 1-40 printable ASCII characters' };
  if (status === 'SUCCESS' && utr === undefined) return { ok: false, error: 'a SUCCESS needs the utr' };
  const amount = amountOf(body.amount);
  if (amount === null) return { ok: false, error: 'amount must be rupees as decimal text, e.g. "250.50"' };
  const reason = reasonOf(body.reason);
  if (reason === null) return { ok: false, error: 'reason must be text' };
  // A return changes what the merchant was told (SUCCESS): it has to say why.
  if (status === 'RETURNED' && reason === undefined) return { ok: false, error: 'a RETURNED needs the reason' };
  return {
    ok: true,
    value: {
      transactionId,
      ...(reference === undefined ? {} : { reference }),
      status,
      ...(utr === undefined ? {} : { utr }),
      ...(amount === undefined ? {} : { amount }),
      ...(reason === undefined ? {} : { reason }),
    },
  };
}
