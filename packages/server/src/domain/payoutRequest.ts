import {
  formatPaise,
  isId,
  isSenderId,
  PAYMENT_MODES,
  parseRupees,
  PayoutCodes,
  withMessage,
  type PaymentMode,
} from '@payrail/protocol';
import { BENEFICIARY_NAME_RULE, isBeneficiaryName } from './beneficiaryName.ts';
import { MAX_CALLBACK_URL_LENGTH } from './callbackUrl.ts';
import { RequestRejected } from './RequestRejected.ts';

/** Per-mode bounds in paise (the provider interface's limits table, in rupees there). */
export const MODE_LIMITS: Readonly<Record<PaymentMode, { min: bigint; max: bigint }>> = {
  IMPS: { min: 100n, max: 500_000_00n },
  NEFT: { min: 100n, max: 1_000_000_00n },
  RTGS: { min: 200_000_00n, max: 100_000_000_00n },
};

/**
 * A 4005 or 4006 message: the interface's words first (what integrations match on), then the mode's own bound and
 * the modes that do take the amount ("Amount below the minimum: RTGS payouts start at 200000.00 rupees; IMPS or NEFT
 * can send 87000.00"), as the other field refusals name their rule after a colon.
 */
export function modeLimitMessage(def: { message: string }, mode: PaymentMode, amount: bigint): string {
  const limits = MODE_LIMITS[mode];
  const bound =
    amount < limits.min
      ? `${mode} payouts start at ${formatPaise(limits.min)} rupees`
      : `${mode} payouts go up to ${formatPaise(limits.max)} rupees`;
  const others = PAYMENT_MODES.filter(
    (m) => m !== mode && amount >= MODE_LIMITS[m].min && amount <= MODE_LIMITS[m].max,
  );
  return others.length === 0
    ? `${def.message}: ${bound}`
    : `${def.message}: ${bound}; ${others.join(' or ')} can send ${formatPaise(amount)}`;
}

export const IFSC_PATTERN = /^[A-Z]{4}0[A-Z0-9]{6}$/;
const ACCOUNT_PATTERN = /^[0-9]{9,18}$/;
export const MAX_REMARKS_LENGTH = 255;

export interface PayoutFields {
  paymentMode: PaymentMode;
  amount: bigint;
  beneficiaryName: string;
  accountNumber: string;
  ifsc: string;
  remarks: string;
  callbackUrl: string | null;
}

const reject = (def: Parameters<typeof withMessage>[0], message?: string): never => {
  throw new RequestRejected(message ? withMessage(def, message) : def);
};

/** First check of docs/merchant/api-reference.md: sender_id present and well-formed (4017). */
export function checkSenderId(plain: Record<string, unknown>): string {
  const senderId = plain.sender_id;
  if (!isSenderId(senderId)) {
    reject(PayoutCodes.invalidField, 'Invalid sender_id: 1-50 characters of A-Z a-z 0-9 . _ -');
  }
  return senderId as string;
}

/** wallet_id present and shaped like one; whether it exists and is the caller's is the store's question. */
export function checkWalletIdShape(plain: Record<string, unknown>): string {
  const walletId = plain.wallet_id;
  if (!isId('wallet', walletId)) reject(PayoutCodes.invalidWallet, 'Invalid wallet_id');
  return walletId as string;
}

/**
 * The field checks that follow the wallet, in the contract's order: payment_mode (4012), amount (4004, 4005,
 * 4006), beneficiary (4003, 4007, 4008), remarks and callback_url (4017). Both shapes are accepted: the
 * beneficiary nested under `beneficiary` or flat at the top level. `ifscKnown` adds the live-mode rule that
 * an IFSC must name a real branch.
 */
export function parsePayoutFields(
  plain: Record<string, unknown>,
  ifscKnown: (ifsc: string) => boolean = () => true,
): PayoutFields {
  const mode = plain.payment_mode;
  if (typeof mode !== 'string' || !(PAYMENT_MODES as readonly string[]).includes(mode)) {
    reject(PayoutCodes.invalidPaymentMode, 'Invalid payment_mode: use IMPS, NEFT or RTGS');
  }
  const paymentMode = mode as PaymentMode;

  const amount = parseRupees(plain.amount);
  if (amount === null) {
    reject(PayoutCodes.invalidAmount, 'Invalid amount: a positive number of rupees with at most two decimals');
  }
  const limits = MODE_LIMITS[paymentMode];
  if ((amount as bigint) < limits.min) {
    reject(
      PayoutCodes.amountBelowMinimum,
      modeLimitMessage(PayoutCodes.amountBelowMinimum, paymentMode, amount as bigint),
    );
  }
  if ((amount as bigint) > limits.max) {
    reject(
      PayoutCodes.amountAboveMaximum,
      modeLimitMessage(PayoutCodes.amountAboveMaximum, paymentMode, amount as bigint),
    );
  }

  const beneficiary = checkBeneficiary(plain, ifscKnown);
  const remarks = plain.remarks ?? '';
  // A NUL character cannot be stored as text: it is an invalid remarks, not a malformed request.
  if (typeof remarks !== 'string' || remarks.length > MAX_REMARKS_LENGTH || remarks.includes('\u0000')) {
    reject(PayoutCodes.invalidField, `Invalid remarks: text of at most ${MAX_REMARKS_LENGTH} characters`);
  }
  const callbackUrl = plain.callback_url ?? null;
  if (callbackUrl !== null && (typeof callbackUrl !== 'string' || callbackUrl.length > MAX_CALLBACK_URL_LENGTH)) {
    reject(
      PayoutCodes.invalidField,
      `Invalid callback_url: an http(s) URL of at most ${MAX_CALLBACK_URL_LENGTH} characters`,
    );
  }
  return {
    paymentMode,
    amount: amount as bigint,
    beneficiaryName: beneficiary.name,
    accountNumber: beneficiary.accountNumber,
    ifsc: beneficiary.ifsc,
    remarks: remarks as string,
    callbackUrl: callbackUrl === '' ? null : (callbackUrl as string | null),
  };
}

export interface BeneficiaryFields {
  name: string;
  accountNumber: string;
  ifsc: string;
}

/**
 * The beneficiary checks of an initiation, in the contract's order: name (4003), IFSC (4007), account number
 * (4008). Nested under `beneficiary` or flat at the top level. Beneficiary verification (docs/merchant/bulk-and-verification.md) uses the
 * same function, so a name, IFSC or account accepted by one is accepted by the other.
 */
export function checkBeneficiary(
  plain: Record<string, unknown>,
  ifscKnown: (ifsc: string) => boolean = () => true,
): BeneficiaryFields {
  const nested = plain.beneficiary;
  const source: Record<string, unknown> =
    nested !== undefined && nested !== null && typeof nested === 'object' && !Array.isArray(nested)
      ? (nested as Record<string, unknown>)
      : plain;
  if (nested !== undefined && source === plain) reject(PayoutCodes.invalidBeneficiary, 'beneficiary must be an object');
  const name = source.beneficiary_name;
  if (!isBeneficiaryName(name))
    reject(PayoutCodes.invalidBeneficiary, `Invalid beneficiary_name: ${BENEFICIARY_NAME_RULE}`);
  const ifsc = source.beneficiary_ifsc;
  if (typeof ifsc !== 'string' || !IFSC_PATTERN.test(ifsc) || !ifscKnown(ifsc)) reject(PayoutCodes.invalidIfsc);
  const account = source.beneficiary_acc_number;
  if (typeof account !== 'string' || !ACCOUNT_PATTERN.test(account)) {
    reject(PayoutCodes.invalidAccountNumber, 'Invalid account number: 9-18 digits');
  }

  return { name: (name as string).trim(), accountNumber: account as string, ifsc: ifsc as string };
}
