import type { Scheme } from '@payrail/protocol';
import { expect } from 'vitest';
import { admin, createMerchant, http, MerchantClient, type HttpResult, type TestMerchant } from './merchantClient.ts';
import { eventually } from './webhookReceiver.ts';

/** Shared helpers of the collection tests: request builders, simulate/status calls and money observers. */

export const TXN_ID = /^CT[0-9A-HJKMNP-TV-Z]{26}$/;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Well-formed (Crockford base32, 26 characters) but never issued. */
export const UNKNOWN_TXN_ID = 'CT00000000000000000000000000';

let counter = 0;
/** A fresh, valid senderId. */
export const senderId = (prefix = 'C') => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export type Outcome = 'SUCCESS' | 'FAILED' | 'PENDING';

export interface CollectionResult extends HttpResult {
  data: Record<string, unknown> | undefined;
}

export interface Party {
  merchant: TestMerchant;
  client: MerchantClient;
}

export async function party(url: string, scheme: Scheme, name = 'Collector'): Promise<Party> {
  const merchant = await createMerchant(url, name);
  return { merchant, client: await MerchantClient.connect(url, merchant, scheme) };
}

export function initiate(client: MerchantClient, plain: Record<string, unknown>): Promise<CollectionResult> {
  return client.post('/collection/v1/initiate', plain);
}

/** Initiates a valid collection and returns its decrypted data (asserting 2000). */
export async function initiateOk(
  client: MerchantClient,
  over: Record<string, unknown> = {},
): Promise<Record<string, unknown> & { txnId: string; senderId: string; intentUrl: string }> {
  const res = await initiate(client, { senderId: senderId(), amount: '250.50', ...over });
  expect(res.body, JSON.stringify(res.body)).toMatchObject({ respCode: 2000 });
  expect(res.status).toBe(200);
  return res.data as Record<string, unknown> & { txnId: string; senderId: string; intentUrl: string };
}

/** POST /sandbox/v1/collections/:txnId/simulate (plain JSON, bearer token); `data` decrypted when present. */
export async function simulate(
  client: MerchantClient,
  txnId: string,
  outcome: unknown,
  extra: Record<string, unknown> = {},
): Promise<CollectionResult> {
  const res = await http(client.url, 'POST', `/sandbox/v1/collections/${encodeURIComponent(txnId)}/simulate`, {
    body: { outcome, ...extra },
    headers: client.auth(),
  });
  return { ...res, data: typeof res.body.data === 'string' ? client.decrypt(res.body.data) : undefined };
}

export function status(client: MerchantClient, query: Record<string, string>): Promise<CollectionResult> {
  return client.get(`/collection/v1/status?${new URLSearchParams(query)}`);
}

/** The wallet balance as the merchant API reports it. */
export async function walletBalance(client: MerchantClient, walletId = client.merchant.wallet_id): Promise<string> {
  const res = await client.get(`/payout/v1/balance?wallet_id=${walletId}`);
  expect(res.body.resp_code, JSON.stringify(res.body)).toBe(2000);
  return (res.data as { balance: string }).balance;
}

export async function expectLedgerOk(url: string): Promise<void> {
  const res = await admin(url, 'GET', '/admin/v1/ledger/verify');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ ok: true, mismatches: [] });
}

export async function setMerchant(url: string, merchantId: string, patch: Record<string, unknown>): Promise<void> {
  const res = await admin(url, 'PATCH', `/admin/v1/merchants/${merchantId}`, patch);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** The admin view of one collection (status, utr, …) found by txnId. */
export async function adminCollection(
  url: string,
  merchantId: string,
  txnId: string,
): Promise<Record<string, unknown> | undefined> {
  const res = await admin(url, 'GET', `/admin/v1/collections?merchant_id=${merchantId}&limit=200`);
  expect(res.status).toBe(200);
  return (res.body.data as Record<string, unknown>[]).find((c) => c.txnId === txnId);
}

export async function waitForCollectionStatus(
  client: MerchantClient,
  txnId: string,
  wanted: string,
  timeoutMs = 5_000,
): Promise<Record<string, unknown>> {
  const data = await eventually(async () => {
    const res = await status(client, { txnId });
    return res.data?.status === wanted ? res.data : null;
  }, timeoutMs);
  return data as Record<string, unknown>;
}
