import { describe, expect, it } from 'vitest';
import { isBeneficiaryName } from '../../src/domain/beneficiaryName.ts';

describe('beneficiary name rule', () => {
  it.each([
    'राहुल शर्मा', // Devanagari: vowel signs are combining marks
    'முருகன்', // Tamil
    'সৌরভ গাঙ্গুলী', // Bengali
    'ਗੁਰਪ੍ਰੀਤ ਸਿੰਘ', // Gurmukhi
    'శ్రీనివాస్', // Telugu
    "D'Souza",
    'A. K. Sharma-Rao',
    'José Müller',
    'e\u0301mile', // decomposed accent
    'a'.repeat(100),
    'र'.repeat(100),
  ])('accepts %s', (name) => expect(isBeneficiaryName(name)).toBe(true));

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['marks only', '\u093e\u093f'],
    ['digits', 'R2D2'],
    ['NUL', 'Asha\u0000Rao'],
    ['control', 'Asha\nRao'],
    ['symbols', 'Asha<Rao>'],
    ['101 code points', 'a'.repeat(101)],
    ['101 code points of Devanagari', 'र'.repeat(101)],
    ['not a string', 42],
  ])('refuses %s', (_label, name) => expect(isBeneficiaryName(name)).toBe(false));
});
