/**
 * A beneficiary name: 1–100 code points of letters and combining marks of any script (Devanagari, Tamil, …
 * write vowel signs as marks: `राहुल शर्मा`), spaces and `. ' -`, with at least one letter. Control characters
 * (NUL included), digits and other symbols are refused. Code points, not graphemes, are counted: the limit is
 * what the bank file holds, and a code point count is the same in every runtime.
 */
const NAME_PATTERN = /^[\p{L}\p{M} .'-]{1,100}$/u;
const HAS_LETTER = /\p{L}/u;

export const BENEFICIARY_NAME_RULE = "1-100 letters or marks of any script, spaces and . ' -";

export function isBeneficiaryName(name: unknown): name is string {
  return typeof name === 'string' && NAME_PATTERN.test(name) && HAS_LETTER.test(name);
}
