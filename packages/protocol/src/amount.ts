/**
 * Amounts travel as rupees in decimal text with two fraction digits and are kept as integer paise (bigint).
 * Nothing here ever goes through floating point arithmetic.
 */
const DECIMAL = /^[0-9]{1,15}(\.[0-9]{1,2})?$/;

/**
 * Parses a positive amount of rupees with at most two fraction digits, no sign, exponent or spaces, given as
 * decimal text or a JSON number. Returns paise, or null when the input is not such an amount.
 */
export function parseRupees(input: unknown): bigint | null {
  let text: string;
  if (typeof input === 'string') text = input;
  else if (typeof input === 'number' && Number.isFinite(input)) text = String(input);
  else return null;
  if (!DECIMAL.test(text)) return null;
  const [whole = '0', fraction = ''] = text.split('.');
  const paise = BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0') || '0');
  return paise > 0n ? paise : null;
}

/** As parseRupees, but zero (`"0"`, `"0.00"`, `0`) is an amount too: a fee, a limit, a threshold. */
export function parseRupeesOrZero(input: unknown): bigint | null {
  const text = typeof input === 'number' && Number.isFinite(input) ? String(input) : input;
  if (typeof text === 'string' && /^0+(\.0{1,2})?$/.test(text)) return 0n;
  return parseRupees(input);
}

/** Formats paise as rupees with exactly two fraction digits, e.g. 10050n → "100.50". */
export function formatPaise(paise: bigint): string {
  const sign = paise < 0n ? '-' : '';
  const abs = paise < 0n ? -paise : paise;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/** Rupees (whole) to paise, for writing limits legibly. */
export const rupees = (value: number | bigint): bigint => BigInt(value) * 100n;
