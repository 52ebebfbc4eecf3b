import type { NameMatchResult } from '@payrail/protocol';
import { transliterateIndic } from './indicTransliteration.ts';

/**
 * How closely the name a merchant gave matches the account holder's name at the bank (docs/merchant/bulk-and-verification.md).
 * The algorithm (documented in docs/merchant/bulk-and-verification.md):
 *
 * 1. Normalise each name: Unicode NFKC, Indian scripts spelled in Latin letters, lower case, accents dropped,
 *    every character that is not a letter or digit (dots, commas, hyphens, apostrophes) becomes a space, split
 *    into tokens. Leading honorifics (Mr, Mrs, Ms, Miss, Shri, Sri, Smt, Kumari, Dr, and their Devanagari
 *    forms) are dropped; common abbreviations are expanded (Md/Mohd → Muhammad, Kr → Kumar, Pd → Prasad).
 * 2. Each token gets a phonetic key that forgives the usual spelling variants of Indian names: aspirated
 *    digraphs (sh, kh, th, bh …) lose their h, w is v, z is j, doubled letters and long vowels (aa, ee, oo)
 *    are single, and a final inherent "a" is dropped (Sharma = Sharm = शर्मा).
 * 3. Tokens are paired, in any order, by best similarity: same key 1.0; an initial and a word starting with that
 *    letter 0.85; same consonant skeleton 0.9; otherwise Jaro-Winkler similarity × 0.9 when it is at least 0.85.
 * 4. score = 100 × (0.6 × matched share of the shorter name + 0.4 × matched share of the longer name), less 5
 *    when the matched tokens are in a different order; names that are the same letters once spaces are removed
 *    ("Ramkumar" / "Ram Kumar") score at least 95; a match made only of initials is capped at 59, and a
 *    one-word name against a longer one at 75.
 *    100 only when both names are the same tokens in the same order.
 * 5. Bands: 100 EXACT_MATCH, 80–99 GOOD_PARTIAL_MATCH, 60–79 MODERATE_PARTIAL_MATCH, 40–59 POOR_PARTIAL_MATCH,
 *    0–39 NO_MATCH.
 */

export const NAME_MATCH_BANDS: readonly { min: number; result: NameMatchResult }[] = [
  { min: 100, result: 'EXACT_MATCH' },
  { min: 80, result: 'GOOD_PARTIAL_MATCH' },
  { min: 60, result: 'MODERATE_PARTIAL_MATCH' },
  { min: 40, result: 'POOR_PARTIAL_MATCH' },
  { min: 0, result: 'NO_MATCH' },
];

export interface NameMatch {
  score: number;
  result: NameMatchResult;
}

const HONORIFICS = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'shri',
  'shree',
  'sri',
  'smt',
  'shrimati',
  'srimati',
  'sushri',
  'kumari',
  'km',
  'kum',
  'dr',
  'doctor',
  // Devanagari forms, as spelled by transliterateIndic: श्री, श्रीमती, सुश्री, कुमारी, डॉ, डा.
  'shrii',
  'shriimatii',
  'sushrii',
  'kumaarii',
  'do',
  'daa',
]);

const ABBREVIATIONS: Record<string, string> = {
  md: 'muhammad',
  mohd: 'muhammad',
  mohammad: 'muhammad',
  mohammed: 'muhammad',
  mohamed: 'muhammad',
  mohamad: 'muhammad',
  muhammed: 'muhammad',
  kr: 'kumar',
  pd: 'prasad',
};

/** The tokens of a name, honorifics and punctuation removed (step 1). */
export function nameTokens(name: string): string[] {
  const latin = transliterateIndic(name.normalize('NFKC')).toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
  const tokens = latin
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
  while (tokens.length > 1 && HONORIFICS.has(tokens[0] as string)) tokens.shift();
  return tokens.map((t) => ABBREVIATIONS[t] ?? t);
}

const DIGRAPHS: [RegExp, string][] = [
  [/chh/g, 'c'],
  [/ch/g, 'c'],
  [/ck/g, 'k'],
  [/([kgjtdpbs])h/g, '$1'],
  [/ph/g, 'f'],
  [/w/g, 'v'],
  [/z/g, 'j'],
  [/q/g, 'k'],
  [/x/g, 'ks'],
  [/ee|ii/g, 'i'],
  [/oo|uu/g, 'u'],
];

/** The phonetic key of a token (step 2). */
export function phoneticKey(token: string): string {
  let key = token;
  for (const [pattern, replacement] of DIGRAPHS) key = key.replace(pattern, replacement);
  key = key.replace(/(.)\1+/g, '$1');
  if (key.length > 2 && key.endsWith('a')) key = key.slice(0, -1);
  return key;
}

const skeleton = (key: string) => (key[0] ?? '') + key.slice(1).replace(/[aeiouy]/g, '');

/** Jaro-Winkler similarity, 0 to 1. */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  if (!a.length || !b.length) return 0;
  const range = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const aMatched = new Array<boolean>(a.length).fill(false);
  const bMatched = new Array<boolean>(b.length).fill(false);
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = Math.max(0, i - range); j < Math.min(b.length, i + range + 1); j++) {
      if (bMatched[j] || a[i] !== b[j]) continue;
      aMatched[i] = bMatched[j] = true;
      matches++;
      break;
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  for (let i = 0, j = 0; i < a.length; i++) {
    if (!aMatched[i]) continue;
    while (!bMatched[j]) j++;
    if (a[i] !== b[j]) transpositions++;
    j++;
  }
  const jaro = (matches / a.length + matches / b.length + (matches - transpositions / 2) / matches) / 3;
  let prefix = 0;
  while (prefix < Math.min(4, a.length, b.length) && a[prefix] === b[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

interface Token {
  text: string;
  key: string;
  initial: boolean;
}

const toToken = (text: string): Token => ({ text, key: phoneticKey(text), initial: text.length === 1 });

/** Similarity of two tokens (step 3). */
function tokenSimilarity(a: Token, b: Token): number {
  if (a.text === b.text || a.key === b.key) return 1;
  if (a.initial || b.initial) {
    const [initial, word] = a.initial ? [a, b] : [b, a];
    return !word.initial && word.text.startsWith(initial.text) ? 0.85 : 0;
  }
  const sa = skeleton(a.key);
  if (sa.length >= 2 && sa === skeleton(b.key)) return 0.9;
  const jw = jaroWinkler(a.key, b.key);
  return jw >= 0.85 ? jw * 0.9 : 0;
}

export function bandOf(score: number): NameMatchResult {
  return (NAME_MATCH_BANDS.find((b) => score >= b.min) as (typeof NAME_MATCH_BANDS)[number]).result;
}

/** Scores `given` (what the merchant sent) against `atBank` (the account holder's name at the bank). */
export function matchNames(given: string, atBank: string): NameMatch {
  const a = nameTokens(given).map(toToken);
  const b = nameTokens(atBank).map(toToken);
  if (a.length === 0 || b.length === 0) return { score: 0, result: 'NO_MATCH' };
  if (a.length === b.length && a.every((t, i) => t.key === b[i]?.key)) return { score: 100, result: 'EXACT_MATCH' };

  // Greedy best-first pairing: take the most similar remaining pair until none is left.
  const pairs: { i: number; j: number; s: number }[] = [];
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) {
      const s = tokenSimilarity(a[i] as Token, b[j] as Token);
      if (s > 0) pairs.push({ i, j, s });
    }
  }
  pairs.sort((x, y) => y.s - x.s || x.i - y.i || x.j - y.j);
  const usedA = new Set<number>();
  const usedB = new Set<number>();
  const chosen: typeof pairs = [];
  for (const p of pairs) {
    if (usedA.has(p.i) || usedB.has(p.j)) continue;
    usedA.add(p.i);
    usedB.add(p.j);
    chosen.push(p);
  }
  const sum = chosen.reduce((acc, p) => acc + p.s, 0);
  const short = Math.min(a.length, b.length);
  const long = Math.max(a.length, b.length);
  let score = 100 * (0.6 * (sum / short) + 0.4 * (sum / long));
  const inOrder = [...chosen].sort((x, y) => x.i - y.i).every((p, k, all) => k === 0 || p.j > (all[k - 1]?.j ?? -1));
  if (!inOrder) score -= 5;
  const fullWordMatched = chosen.some((p) => !(a[p.i] as Token).initial && !(b[p.j] as Token).initial);
  if (!fullWordMatched) score = Math.min(score, 59);
  // One word alone (a first name) never identifies the holder of a longer name well.
  if (short === 1 && long > 1) score = Math.min(score, 75);
  if (a.map((t) => t.key).join('') === b.map((t) => t.key).join('')) score = Math.max(score, 95);
  const rounded = Math.max(0, Math.min(99, Math.round(score)));
  return { score: rounded, result: bandOf(rounded) };
}
