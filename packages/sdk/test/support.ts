import { admin, createMerchant, http, type TestMerchant } from '../../server/test/support/merchantClient.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../../server/test/support/testServer.ts';
import { Payrail, type PayoutInitiateInput, type PayrailOptions } from '../src/index.ts';

export { admin, createMerchant, http, startTestServer, TEST_ADMIN_TOKEN, type TestMerchant, type TestServer };

let seq = 0;
/** A senderId unique within the test run. */
export const senderId = (prefix = 'S') => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++seq}`;

export function clientFor(url: string, m: TestMerchant, options: Partial<PayrailOptions> = {}): Payrail {
  return new Payrail({
    baseUrl: url,
    apiKey: m.api_key,
    secretKey: m.secret_key,
    webhookSecret: m.webhook_secret,
    retry: { retries: 2, baseDelayMs: 20, maxDelayMs: 100 },
    ...options,
  });
}

export const SANDBOX = {
  ifsc: 'SBOX0000001',
  success: '100000000001',
  fail: '100000000002',
  pending: '100000000003',
  verificationFails: '100000000004',
};

export function payoutInput(walletId: string, overrides: Partial<PayoutInitiateInput> = {}): PayoutInitiateInput {
  return {
    senderId: senderId(),
    walletId,
    paymentMode: 'IMPS',
    amount: '100.00',
    beneficiary: { name: 'Asha Rao', accountNumber: SANDBOX.success, ifsc: SANDBOX.ifsc },
    remarks: 'test payout',
    ...overrides,
  };
}
