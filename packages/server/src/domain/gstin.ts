/**
 * GST identification numbers and the GST state codes (docs/operator/charging-merchants.md, "Tax invoices"). Pure.
 *
 * A GSTIN is 15 characters: the two-digit state code of the registration, the holder's PAN (10 characters), the
 * registration's number within the state (1–9, A–Z), a fourteenth character (`Z` for ordinary taxpayers) and a check
 * character. The check character is the GST Network's "Luhn mod 36": over the first 14 characters, each valued 0–35
 * (`0`–`9`, `A`–`Z`), weighted 1, 2, 1, 2, … from the left, each product written in base 36 and its two digits added
 * (quotient + remainder by 36); the check value is (36 − sum mod 36) mod 36.
 *
 * Only the state code, the alphabet and the check character are verified: the PAN part and the fourteenth character
 * take other shapes for some registrations (tax deductors, non-resident and UN bodies), and the check character
 * already catches a mistyped or transposed character.
 */

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * The GST state and union territory codes (the first two digits of a GSTIN, and a place of supply). 25 and 28 are
 * kept for registrations made before Daman and Diu merged into 26 (2020) and before Andhra Pradesh became 37 (2014).
 */
export const GST_STATES: Readonly<Record<string, string>> = {
  '01': 'Jammu and Kashmir',
  '02': 'Himachal Pradesh',
  '03': 'Punjab',
  '04': 'Chandigarh',
  '05': 'Uttarakhand',
  '06': 'Haryana',
  '07': 'Delhi',
  '08': 'Rajasthan',
  '09': 'Uttar Pradesh',
  '10': 'Bihar',
  '11': 'Sikkim',
  '12': 'Arunachal Pradesh',
  '13': 'Nagaland',
  '14': 'Manipur',
  '15': 'Mizoram',
  '16': 'Tripura',
  '17': 'Meghalaya',
  '18': 'Assam',
  '19': 'West Bengal',
  '20': 'Jharkhand',
  '21': 'Odisha',
  '22': 'Chhattisgarh',
  '23': 'Madhya Pradesh',
  '24': 'Gujarat',
  '25': 'Daman and Diu',
  '26': 'Dadra and Nagar Haveli and Daman and Diu',
  '27': 'Maharashtra',
  '28': 'Andhra Pradesh (before 2014)',
  '29': 'Karnataka',
  '30': 'Goa',
  '31': 'Lakshadweep',
  '32': 'Kerala',
  '33': 'Tamil Nadu',
  '34': 'Puducherry',
  '35': 'Andaman and Nicobar Islands',
  '36': 'Telangana',
  '37': 'Andhra Pradesh',
  '38': 'Ladakh',
  '97': 'Other Territory',
  '99': 'Centre Jurisdiction',
};

/** Whether `code` is a GST state code ("27"). */
export const isStateCode = (code: string): boolean => Object.hasOwn(GST_STATES, code);

/** "27 Maharashtra", or the code alone for one that is not in the list. */
export const stateLabel = (code: string): string => (isStateCode(code) ? `${code} ${GST_STATES[code]}` : code);

/** The check character of the first 14 characters of a GSTIN (upper case, of the alphabet). */
export function gstinCheckCharacter(first14: string): string {
  let sum = 0;
  for (let i = 0; i < 14; i++) {
    const value = ALPHABET.indexOf(first14.charAt(i));
    if (value < 0) throw new RangeError(`not a GSTIN character: ${first14.charAt(i)}`);
    const product = value * (i % 2 === 0 ? 1 : 2);
    sum += Math.floor(product / 36) + (product % 36);
  }
  return ALPHABET.charAt((36 - (sum % 36)) % 36);
}

/** A GSTIN as it is kept: spaces around removed, upper case. */
export const normalizeGstin = (text: string): string => text.trim().toUpperCase();

/**
 * What is wrong with a GSTIN (already normalised), in words for an error message; null when it is a well-formed
 * GSTIN of a known state whose check character is right.
 */
export function gstinProblem(gstin: string): string | null {
  if (gstin.length !== 15) return `must be 15 characters, not ${gstin.length}`;
  if (!/^[0-9]{2}[0-9A-Z]{13}$/.test(gstin)) {
    return 'must be two digits (the state code) and 13 letters or digits';
  }
  if (!isStateCode(gstin.slice(0, 2))) return `starts with ${gstin.slice(0, 2)}, which is no GST state code`;
  if (gstinCheckCharacter(gstin.slice(0, 14)) !== gstin.charAt(14)) {
    return 'fails its check character (a character is mistyped or two are swapped)';
  }
  return null;
}

/** The state a GSTIN is registered in: its first two digits. */
export const gstinState = (gstin: string): string => gstin.slice(0, 2);
