import type { Payout, PayoutInitiateInput } from '@payrail/sdk';

/** Rupee text compared by value: "100" and "100.00" are one amount. */
const rupees = (text: string) => {
  const [whole = '', fraction = ''] = text.trim().split('.');
  return `${whole.replace(/^0+(?=\d)/, '') || '0'}.${fraction.padEnd(2, '0')}`;
};

/** What the earlier payout under the sender id has that this command did not ask for, in the command's options. */
export function differences(existing: Payout, input: PayoutInitiateInput): string[] {
  const out: string[] = [];
  if (rupees(existing.amount) !== rupees(String(input.amount))) out.push(`--amount ${existing.amount}`);
  if (existing.paymentMode !== input.paymentMode) out.push(`--mode ${existing.paymentMode}`);
  if (existing.walletId !== input.walletId) out.push(`--wallet ${existing.walletId}`);
  if (existing.beneficiary.accountNumber !== input.beneficiary.accountNumber) {
    out.push(`--account ${existing.beneficiary.accountNumber}`);
  }
  if (existing.beneficiary.ifsc.toUpperCase() !== input.beneficiary.ifsc.toUpperCase()) {
    out.push(`--ifsc ${existing.beneficiary.ifsc}`);
  }
  return out;
}

/**
 * `payrail payout send` with a sender id that already holds another payout (4009): what happened and what to do, in
 * the CLI's words (its options and commands), instead of the SDK's (which speaks of `onDuplicate` to programmers).
 * The earlier payout is never changed and nothing was sent now.
 */
export function senderIdConflict(
  input: PayoutInitiateInput,
  existing: Payout | undefined,
): { message: string; hint: string } {
  const senderId = input.senderId;
  const look = `payrail payout status --sender-id ${senderId}`;
  if (!existing) {
    return {
      message: `sender id ${senderId} was already used for another payout; nothing was sent now`,
      hint: `Use a new --sender-id for a new payout, or run \`${look}\` to see the earlier one.`,
    };
  }
  const diff = differences(existing, input);
  return {
    message:
      `sender id ${senderId} was already used for payout ${existing.transactionId} (${existing.status}: ` +
      `${existing.amount} INR by ${existing.paymentMode} to account ${existing.beneficiary.accountNumber}, ` +
      `IFSC ${existing.beneficiary.ifsc}) with other details` +
      (diff.length > 0 ? ` (it had ${diff.join(', ')})` : '') +
      '; nothing was sent now',
    hint:
      `Use a new --sender-id for a new payout, or run \`${look}\` to see the earlier one ` +
      '(a sender id names one payout for good).',
  };
}
