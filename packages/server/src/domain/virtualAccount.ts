/**
 * Virtual account numbers (docs/merchant/funding-a-wallet.md): PAYRAIL_VA_PREFIX, the wallet's sequence number as
 * ten digits (migration 032's `va_seq`, unique per wallet), and a Luhn check digit over everything before it. The
 * Luhn digit catches every single mistyped digit and most swaps of two neighbours, so a remitter's typo is refused
 * as an unknown number instead of reaching another merchant's wallet.
 */

/** Digits of the wallet's part of the number. */
export const VA_SEQ_DIGITS = 10;

/** What the operator's settings make of a virtual account: the prefix always, the IFSC once it is known. */
export interface VirtualAccountSettings {
  /** Digits, 1 to 6 of them (default 9988). */
  prefix: string;
  /** The collection bank's IFSC; null in live mode until PAYRAIL_VA_IFSC is set (no numbers are shown until then). */
  ifsc: string | null;
}

/** The Luhn check digit of a string of digits (the digit that, appended, makes the whole pass). */
export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    // From the right, starting with the digit next to the check digit: every other one is doubled.
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** The virtual account number of the wallet numbered `seq`. */
export function virtualAccountNumber(prefix: string, seq: bigint): string {
  const body = prefix + seq.toString().padStart(VA_SEQ_DIGITS, '0');
  return body + String(luhnCheckDigit(body));
}

/**
 * The wallet sequence number a virtual account number names, or null when it is not one of this prefix's numbers:
 * another length or prefix, not all digits, a check digit that fails, or the number 0.
 */
export function parseVirtualAccount(prefix: string, number: string): bigint | null {
  const n = number.trim();
  if (!/^[0-9]+$/.test(n) || n.length !== prefix.length + VA_SEQ_DIGITS + 1 || !n.startsWith(prefix)) return null;
  const body = n.slice(0, -1);
  if (luhnCheckDigit(body) !== Number(n.slice(-1))) return null;
  const seq = BigInt(body.slice(prefix.length));
  return seq === 0n ? null : seq;
}
