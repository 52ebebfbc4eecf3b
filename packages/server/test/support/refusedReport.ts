import { expect } from 'vitest';
import { signPspNotification } from '../../src/domain/pspSignature.ts';
import { http } from './merchantClient.ts';
import { fundedMerchant, initiateOk, payoutRequest, SANDBOX } from './payoutFixtures.ts';

/**
 * An open exception of the queue, made the way an outside report makes one: a sandbox payout that waits (the
 * sandbox's pending account), then a signed PSP notification saying it was paid, which only `manual` payouts take,
 * so it is refused (docs/operator/exceptions.md). `nowMs` is the server's clock (the signature's timestamp).
 */
export async function refusedPspReport(url: string, pspSecret: string, nowMs: number, utr: string) {
  const funded = await fundedMerchant(url, 'v2');
  const payout = await initiateOk(
    funded.client,
    payoutRequest('nested', {
      wallet_id: funded.merchant.wallet_id,
      amount: '150.25',
      beneficiary_ifsc: SANDBOX.ifsc,
      beneficiary_acc_number: SANDBOX.pending,
    }),
  );
  const payoutId = payout.transaction_id as string;
  const raw = JSON.stringify({ transactionId: payoutId, status: 'SUCCESS', utr });
  const notified = await http(url, 'POST', '/psp/v1/payouts/notify', {
    rawBody: raw,
    headers: {
      'content-type': 'application/json',
      'payrail-signature': signPspNotification(pspSecret, raw, nowMs / 1000),
    },
  });
  expect(notified.body, JSON.stringify(notified.body)).toMatchObject({ result: 'refused' });
  return { funded, payoutId, exceptionId: notified.body.exception_id as string };
}
