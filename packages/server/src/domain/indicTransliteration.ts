/**
 * Latin letters for names written in an Indian script, so that `राहुल` and `Rahul` can be compared. The Unicode
 * blocks of Devanagari, Bengali, Gurmukhi, Gujarati, Odia, Tamil, Telugu, Kannada and Malayalam share one layout
 * (inherited from ISCII): the same offset in each block is the same letter. Each letter is therefore folded onto
 * its Devanagari twin and spelled the way Indian names are usually romanised (a consonant carries an inherent
 * "a" unless a vowel sign or a virama follows). The result is a rough phonetic spelling for matching, not a
 * scholarly transliteration; anything outside these blocks is returned unchanged.
 */

const FIRST_INDIC = 0x0900;
const END_INDIC = 0x0d80;

const VOWELS: Record<number, string> = {
  0x05: 'a',
  0x06: 'aa',
  0x07: 'i',
  0x08: 'ii',
  0x09: 'u',
  0x0a: 'uu',
  0x0b: 'ri',
  0x0c: 'li',
  0x0d: 'e',
  0x0e: 'e',
  0x0f: 'e',
  0x10: 'ai',
  0x11: 'o',
  0x12: 'o',
  0x13: 'o',
  0x14: 'au',
};

const CONSONANTS: Record<number, string> = {
  0x15: 'k',
  0x16: 'kh',
  0x17: 'g',
  0x18: 'gh',
  0x19: 'n',
  0x1a: 'ch',
  0x1b: 'chh',
  0x1c: 'j',
  0x1d: 'jh',
  0x1e: 'n',
  0x1f: 't',
  0x20: 'th',
  0x21: 'd',
  0x22: 'dh',
  0x23: 'n',
  0x24: 't',
  0x25: 'th',
  0x26: 'd',
  0x27: 'dh',
  0x28: 'n',
  0x29: 'n',
  0x2a: 'p',
  0x2b: 'ph',
  0x2c: 'b',
  0x2d: 'bh',
  0x2e: 'm',
  0x2f: 'y',
  0x30: 'r',
  0x31: 'r',
  0x32: 'l',
  0x33: 'l',
  0x34: 'l',
  0x35: 'v',
  0x36: 'sh',
  0x37: 'sh',
  0x38: 's',
  0x39: 'h',
  0x58: 'q',
  0x59: 'kh',
  0x5a: 'g',
  0x5b: 'z',
  0x5c: 'r',
  0x5d: 'rh',
  0x5e: 'f',
  0x5f: 'y',
};

const VOWEL_SIGNS: Record<number, string> = {
  0x3e: 'aa',
  0x3f: 'i',
  0x40: 'ii',
  0x41: 'u',
  0x42: 'uu',
  0x43: 'ri',
  0x44: 'ri',
  0x45: 'e',
  0x46: 'e',
  0x47: 'e',
  0x48: 'ai',
  0x49: 'o',
  0x4a: 'o',
  0x4b: 'o',
  0x4c: 'au',
  0x62: 'li',
  0x63: 'li',
};

const VIRAMA = 0x4d;
const NUKTA = 0x3c;
/** Candrabindu, anusvara, visarga, and Gurmukhi's tippi (a nasal, at the offset of Devanagari's rare '॰'). */
const MODIFIERS: Record<number, string> = { 0x01: 'n', 0x02: 'n', 0x03: 'h', 0x70: 'n' };

/** Offset of a code point inside its Indic block, or null for any other character. */
function indicOffset(cp: number): number | null {
  return cp >= FIRST_INDIC && cp < END_INDIC ? (cp - FIRST_INDIC) % 0x80 : null;
}

export function transliterateIndic(text: string): string {
  let out = '';
  // A consonant was just written and still carries its inherent vowel.
  let inherent = false;
  for (const ch of text) {
    const offset = indicOffset(ch.codePointAt(0) as number);
    if (offset === null) {
      if (inherent) out += 'a';
      inherent = false;
      out += ch;
      continue;
    }
    if (offset === NUKTA) continue;
    if (offset === VIRAMA) {
      inherent = false;
      continue;
    }
    const sign = VOWEL_SIGNS[offset];
    if (sign !== undefined) {
      out += sign;
      inherent = false;
      continue;
    }
    if (inherent) out += 'a';
    inherent = false;
    const consonant = CONSONANTS[offset];
    if (consonant !== undefined) {
      out += consonant;
      inherent = true;
      continue;
    }
    out += VOWELS[offset] ?? MODIFIERS[offset] ?? '';
  }
  if (inherent) out += 'a';
  return out;
}
