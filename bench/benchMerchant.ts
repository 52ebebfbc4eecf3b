import { decryptJsonObject } from '@payrail/protocol';
import type { DriverMerchant } from './driver.ts';

/** A merchant the benchmark made: its ids, keys and a V2 token. */
export interface BenchMerchant extends DriverMerchant {
  merchantId: string;
}

/** One admin API call with the bench's admin token; throws on anything but 2xx. */
export async function adminCall(url: string, adminToken: string, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Creates a merchant, credits its first wallet with `credit` (decimal text) and fetches a V2 token. */
export async function fundedBenchMerchant(
  url: string,
  adminToken: string,
  name: string,
  credit: string,
): Promise<BenchMerchant> {
  const m = await adminCall(url, adminToken, 'POST', '/admin/v1/merchants', { name });
  await adminCall(url, adminToken, 'POST', `/admin/v1/wallets/${String(m.wallet_id)}/credits`, { amount: credit });
  const keys = { apiKey: String(m.api_key), secretKey: String(m.secret_key) };
  const res = await fetch(`${url}/v1/auth/client-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(keys),
  });
  const { token } = decryptJsonObject(((await res.json()) as { data: string }).data, 'v2', keys) as { token: string };
  return { merchantId: String(m.merchant_id), walletId: String(m.wallet_id), token, ...keys };
}
