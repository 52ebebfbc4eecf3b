import { randomBytes } from 'node:crypto';
import type { Scheme } from '@payrail/protocol';
import { expect } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import type { Payout } from '../../src/domain/Payout.ts';
import { admin, createMerchant, MerchantClient, type TestMerchant } from './merchantClient.ts';
import { eventually } from './webhookReceiver.ts';

/** Shared helpers of the payout HTTP tests: request builders, observers and the "nothing recorded" check. */

export const TRANSACTION_ID = /^PT[0-9A-HJKMNP-TV-Z]{26}$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A valid beneficiary outside the sandbox's designated accounts: succeeds like 100000000001. */
export const PLAIN_BENEFICIARY = {
  beneficiary_name: 'Asha Rao',
  beneficiary_ifsc: 'HDFC0001234',
  beneficiary_acc_number: '123456789012',
};

export const SANDBOX = {
  ifsc: 'SBOX0000001',
  success: '100000000001',
  failure: '100000000002',
  pending: '100000000003',
  verificationFailure: '100000000004',
};

let counter = 0;
/** A fresh, valid sender_id. */
export const senderId = (prefix = 'S') => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export type Shape = 'nested' | 'flat';

export interface PayoutInput {
  sender_id?: string;
  wallet_id: string;
  payment_mode?: string;
  amount?: unknown;
  beneficiary_name?: string;
  beneficiary_ifsc?: string;
  beneficiary_acc_number?: string;
  remarks?: string;
  callback_url?: string;
}

/** A valid initiation plaintext in either shape; `over` replaces (or, with undefined, removes) top-level fields. */
export function payoutRequest(
  shape: Shape,
  input: PayoutInput,
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  const beneficiary = {
    beneficiary_name: input.beneficiary_name ?? PLAIN_BENEFICIARY.beneficiary_name,
    beneficiary_ifsc: input.beneficiary_ifsc ?? PLAIN_BENEFICIARY.beneficiary_ifsc,
    beneficiary_acc_number: input.beneficiary_acc_number ?? PLAIN_BENEFICIARY.beneficiary_acc_number,
  };
  const plain: Record<string, unknown> = {
    sender_id: input.sender_id ?? senderId(),
    wallet_id: input.wallet_id,
    payment_mode: input.payment_mode ?? 'IMPS',
    amount: input.amount ?? '100.00',
    ...(shape === 'nested' ? { beneficiary } : beneficiary),
    remarks: input.remarks ?? 'test payout',
    ...(input.callback_url === undefined ? {} : { callback_url: input.callback_url }),
  };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) delete plain[key];
    else plain[key] = value;
  }
  return plain;
}

/** The shape the provider interface pairs with each scheme (both shapes are accepted in both). */
export const shapeOf = (scheme: Scheme): Shape => (scheme === 'v1' ? 'flat' : 'nested');

export interface Funded {
  merchant: TestMerchant;
  client: MerchantClient;
}

/** A new merchant with `credit` rupees in its first wallet and a session of `scheme`. */
export async function fundedMerchant(url: string, scheme: Scheme, credit = '100000.00'): Promise<Funded> {
  const merchant = await createMerchant(url, `Merchant ${randomBytes(3).toString('hex')}`, credit);
  return { merchant, client: await MerchantClient.connect(url, merchant, scheme) };
}

/** The payout as the operator sees it (no rate limit, no session needed). */
export async function adminPayout(url: string, transactionId: string): Promise<Record<string, unknown>> {
  const res = await admin(url, 'GET', `/admin/v1/payouts/${transactionId}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Waits until the payout has `status` (observed through the admin API) and returns it. */
export async function waitForStatus(
  url: string,
  transactionId: string,
  status: string,
  timeoutMs = 8000,
): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  try {
    const reached = await eventually(
      async () => {
        last = await adminPayout(url, transactionId);
        return last.status === status ? last : null;
      },
      timeoutMs,
      15,
    );
    return reached as Record<string, unknown>;
  } catch {
    throw new Error(`payout ${transactionId} did not reach ${status}; it is ${String(last.status)}`);
  }
}

/** Every payout of a merchant listed by the admin API (all pages). */
export async function listPayouts(url: string, merchantId: string, status?: string) {
  const all: Record<string, unknown>[] = [];
  let cursor = '';
  for (;;) {
    const query = new URLSearchParams({ merchant_id: merchantId, limit: '200' });
    if (status) query.set('status', status);
    if (cursor) query.set('cursor', cursor);
    const res = await admin(url, 'GET', `/admin/v1/payouts?${query}`);
    expect(res.status).toBe(200);
    all.push(...(res.body.data as Record<string, unknown>[]));
    if (!res.body.has_more) return all;
    cursor = res.body.next_cursor as string;
  }
}

/** The wallet's balance as the operator sees it (independent of the merchant API under test). */
export async function walletBalance(url: string, merchantId: string, walletId: string): Promise<string> {
  const res = await admin(url, 'GET', `/admin/v1/merchants/${merchantId}`);
  expect(res.status).toBe(200);
  const wallet = (res.body.wallets as { wallet_id: string; balance: string }[]).find((w) => w.wallet_id === walletId);
  if (!wallet) throw new Error(`wallet ${walletId} not listed for ${merchantId}`);
  return wallet.balance;
}

export async function expectLedgerOk(url: string): Promise<void> {
  const res = await admin(url, 'GET', '/admin/v1/ledger/verify');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ ok: true, mismatches: [] });
}

export async function setLimits(
  url: string,
  merchantId: string,
  limits: { daily_limit?: string | null; monthly_limit?: string | null },
) {
  const res = await admin(url, 'PATCH', `/admin/v1/merchants/${merchantId}`, limits);
  expect(res.status).toBe(200);
}

export type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/** The observable state a refused request must leave untouched. */
export async function snapshot(url: string, merchant: TestMerchant) {
  return {
    balance: await walletBalance(url, merchant.merchant_id, merchant.wallet_id),
    payouts: (await listPayouts(url, merchant.merchant_id)).map((p) => p.transaction_id),
  };
}

/**
 * Sends an initiation and asserts it was refused with `code`/`httpStatus` and that nothing was recorded: the
 * balance and the merchant's payouts are unchanged, the sender_id is not known, and the ledger verifies.
 */
export async function expectRefused(
  f: Funded,
  plain: unknown,
  code: number,
  httpStatus: number,
  /** The state before, when the caller knows it (saves reading it): the balance and payouts, sender_id unknown. */
  known?: Snapshot,
): Promise<{ message: string; data: Record<string, unknown> | undefined }> {
  const sender = (plain as { sender_id?: unknown } | null)?.sender_id;
  const senderKnown = async () =>
    typeof sender === 'string' && /^[A-Za-z0-9._-]{1,50}$/.test(sender)
      ? (await f.client.get(`/payout/v1/status?sender_id=${encodeURIComponent(sender)}`)).data?.transaction_id
      : undefined;
  const before = known
    ? { ...known, sender: undefined }
    : { ...(await snapshot(f.client.url, f.merchant)), sender: await senderKnown() };
  const res = await f.client.post('/payout/v1/initiate', plain);
  expect({ code: res.body.resp_code, http: res.status }).toEqual({ code, http: httpStatus });
  expect(typeof res.body.resp_message).toBe('string');
  expect(Object.keys(res.body).sort()).toEqual(
    res.body.data === undefined ? ['resp_code', 'resp_message'] : ['data', 'resp_code', 'resp_message'],
  );
  // The sender_id stays unknown (or keeps naming the payout it named before).
  expect({ ...(await snapshot(f.client.url, f.merchant)), sender: await senderKnown() }).toEqual(before);
  await expectLedgerOk(f.client.url);
  return { message: res.body.resp_message as string, data: res.data };
}

/** Initiates a payout that must succeed and returns its decrypted transaction object. */
export async function initiateOk(client: MerchantClient, plain: unknown): Promise<Record<string, unknown>> {
  const res = await client.post('/payout/v1/initiate', plain);
  if (res.body.resp_code !== 2000) {
    throw new Error(`initiation refused: ${res.status} ${JSON.stringify(res.body)}`);
  }
  expect(res.status).toBe(200);
  return res.data as Record<string, unknown>;
}

/**
 * A payout as PayoutService drafts it before the store opens it (INITIATED, no fee yet: the database prices it), for
 * the store tests that call the repository directly; `fields` gives what the test varies.
 */
export function draftPayout(
  fields: Pick<Payout, 'merchantId' | 'walletId' | 'senderId' | 'amount'> & Partial<Payout>,
): Payout {
  const now = new Date();
  return {
    id: newId('payout', now.getTime()),
    fee: 0n,
    tax: 0n,
    paymentMode: 'IMPS',
    beneficiary: { name: 'Asha Rao', accountNumber: '100000000001', ifsc: 'SBOX0000001', bankName: 'Sandbox Bank' },
    remarks: '',
    callbackUrl: null,
    scheme: 'v2',
    status: 'INITIATED',
    statusMessage: 'Payout accepted',
    utr: '',
    rail: 'sandbox',
    railReference: null,
    submittedAt: null,
    submitAttempts: 0,
    railError: null,
    failureReason: null,
    istDay: '2026-11-28',
    istMonth: '2026-11',
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}
