import type { NameMatchResult } from '@payrail/protocol';
import { describe, expect, it } from 'vitest';
import { bandOf, jaroWinkler, matchNames, nameTokens, phoneticKey } from '../../src/domain/nameMatch.ts';
import { transliterateIndic } from '../../src/domain/indicTransliteration.ts';

/**
 * The name matcher of docs/merchant/bulk-and-verification.md on Indian names: what a merchant sends (left) against the account holder's
 * name at the bank (right), with the band a payments operator would expect.
 */
const TABLE: [given: string, atBank: string, expected: NameMatchResult][] = [
  // Same name, written differently: case, spacing, punctuation, honorifics.
  ['Rahul Kumar Verma', 'RAHUL KUMAR VERMA', 'EXACT_MATCH'],
  ['rahul  kumar   verma', 'RAHUL KUMAR VERMA', 'EXACT_MATCH'],
  ['Mr. Rahul Kumar Verma', 'RAHUL KUMAR VERMA', 'EXACT_MATCH'],
  ['Dr. Sunita Reddy', 'SUNITA REDDY', 'EXACT_MATCH'],
  ['Smt. Kamala Devi', 'KAMALA DEVI', 'EXACT_MATCH'],
  ['Shri Ramesh Chandra Joshi', 'RAMESH CHANDRA JOSHI', 'EXACT_MATCH'],
  ['Ms Fatima Sheikh', 'FATIMA SHEIKH', 'EXACT_MATCH'],
  ['Mrs. Anjali Deshpande', 'ANJALI DESHPANDE', 'EXACT_MATCH'],
  ["Meera D'Souza", 'MEERA DSOUZA', 'GOOD_PARTIAL_MATCH'],
  ['Ravi-Shankar Pillai', 'RAVI SHANKAR PILLAI', 'EXACT_MATCH'],
  // Usual spelling variants of Indian names.
  ['Smt. Lakshmi Devi', 'LAXMI DEVI', 'EXACT_MATCH'],
  ['Mohd Aslam', 'MOHAMMED ASLAM', 'EXACT_MATCH'],
  ['Md. Irfan Khan', 'MOHAMMAD IRFAN KHAN', 'EXACT_MATCH'],
  ['Srinivas Rao', 'SRINIVASA RAO', 'EXACT_MATCH'],
  ['Sanjiv Malhotra', 'SANJEEV MALHOTRA', 'EXACT_MATCH'],
  ['Pooja Agarwal', 'PUJA AGGARWAL', 'EXACT_MATCH'],
  ['Venkatesh Iyer', 'VENKATESAN IYER', 'GOOD_PARTIAL_MATCH'],
  ['Vijay Kr. Singh', 'VIJAY KUMAR SINGH', 'EXACT_MATCH'],
  ['Rajendra Pd Yadav', 'RAJENDRA PRASAD YADAV', 'EXACT_MATCH'],
  ['Suresh Kumar', 'SURESHKUMAR', 'GOOD_PARTIAL_MATCH'],
  ['Ramkumar Yadav', 'RAM KUMAR YADAV', 'GOOD_PARTIAL_MATCH'],
  // Initials.
  ['A. K. Sharma', 'ANIL KUMAR SHARMA', 'GOOD_PARTIAL_MATCH'],
  ['A K Sharma', 'ANIL KUMAR SHARMA', 'GOOD_PARTIAL_MATCH'],
  ['S. Ramanathan', 'SUBRAMANIAM RAMANATHAN', 'GOOD_PARTIAL_MATCH'],
  ['K.V. Narayanan', 'KRISHNAN VENKATA NARAYANAN', 'GOOD_PARTIAL_MATCH'],
  ['P Chidambaram', 'PALANIAPPAN CHIDAMBARAM', 'GOOD_PARTIAL_MATCH'],
  ['A. K.', 'ANIL KUMAR', 'POOR_PARTIAL_MATCH'],
  ['B. K. Sharma', 'ANIL KUMAR SHARMA', 'MODERATE_PARTIAL_MATCH'],
  // Reordered tokens (surname first, as many banks record it).
  ['Sharma Anil Kumar', 'ANIL KUMAR SHARMA', 'GOOD_PARTIAL_MATCH'],
  ['Patel Nirav', 'NIRAV PATEL', 'GOOD_PARTIAL_MATCH'],
  ['Gupta Priya', 'PRIYA GUPTA', 'GOOD_PARTIAL_MATCH'],
  // Part of the name only.
  ['Rahul Verma', 'RAHUL KUMAR VERMA', 'GOOD_PARTIAL_MATCH'],
  ['Neha Sharma', 'NEHA RAJESH SHARMA', 'GOOD_PARTIAL_MATCH'],
  ['Rahul', 'RAHUL KUMAR VERMA', 'MODERATE_PARTIAL_MATCH'],
  ['Amit', 'AMIT PATEL', 'MODERATE_PARTIAL_MATCH'],
  // Another person.
  ['Rahul Sharma', 'RAHUL KUMAR VERMA', 'POOR_PARTIAL_MATCH'],
  ['Priya Singh', 'PRIYA SHARMA', 'POOR_PARTIAL_MATCH'],
  ['Priya Singh', 'AMIT KUMAR', 'NO_MATCH'],
  ['Deepak Chopra', 'SUNITA REDDY', 'NO_MATCH'],
  ['Arjun Nair', 'KAVITA MENON', 'NO_MATCH'],
  ['Imran Qureshi', 'GURPREET KAUR', 'NO_MATCH'],
  // Indian scripts, against the bank's Latin record.
  ['राहुल कुमार वर्मा', 'RAHUL KUMAR VERMA', 'GOOD_PARTIAL_MATCH'],
  ['श्री सुरेश कुमार', 'SURESH KUMAR', 'EXACT_MATCH'],
  ['अनिल शर्मा', 'ANIL SHARMA', 'EXACT_MATCH'],
  ['सुनीता देवी', 'SUNITA DEVI', 'EXACT_MATCH'],
  ['প্রিয়া দাস', 'PRIYA DAS', 'EXACT_MATCH'],
  ['ਗੁਰਪ੍ਰੀਤ ਸਿੰਘ', 'GURPREET SINGH', 'GOOD_PARTIAL_MATCH'],
  ['राहुल वर्मा', 'PRIYA SINGH', 'NO_MATCH'],
  ['अनिल शर्मा', 'अनिल शर्मा', 'EXACT_MATCH'],
];

describe('name matcher (docs/merchant/bulk-and-verification.md)', () => {
  it(`matches a table of ${TABLE.length} Indian name pairs with the expected verdict`, () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
    const wrong = TABLE.map(([given, atBank, expected]) => ({ given, atBank, expected, ...matchNames(given, atBank) }))
      .filter((r) => r.result !== r.expected)
      .map((r) => `${r.given} ~ ${r.atBank}: ${r.result} (${r.score}), expected ${r.expected}`);
    expect(wrong).toEqual([]);
  });

  it('scores within the band of its result, symmetric enough to not depend on which side is the bank', () => {
    for (const [given, atBank] of TABLE) {
      const m = matchNames(given, atBank);
      expect(m.score).toBeGreaterThanOrEqual(0);
      expect(m.score).toBeLessThanOrEqual(100);
      expect(bandOf(m.score)).toBe(m.result);
      expect(matchNames(atBank, given).result).toBe(m.result);
    }
  });

  it('gives 100 only to the same tokens in the same order', () => {
    expect(matchNames('Anil Kumar Sharma', 'anil kumar sharma').score).toBe(100);
    expect(matchNames('Sharma Anil Kumar', 'Anil Kumar Sharma').score).toBeLessThan(100);
    expect(matchNames('', 'ANIL').score).toBe(0);
    expect(matchNames('Mr', 'Mr').result).toBe('EXACT_MATCH');
  });

  it('normalises: honorifics only in front, punctuation, accents, scripts', () => {
    expect(nameTokens('Mr. & Mrs. Anil-Kumar  Sharma')).toEqual(['anil', 'kumar', 'sharma']);
    expect(nameTokens('Shri')).toEqual(['shri']);
    expect(nameTokens('Ramesh Shri')).toEqual(['ramesh', 'shri']);
    expect(nameTokens('José Ñúñez')).toEqual(['jose', 'nunez']);
    expect(transliterateIndic('राहुल')).toBe('raahula');
    expect(transliterateIndic('शर्मा')).toBe('sharmaa');
    expect(phoneticKey('sharmaa')).toBe(phoneticKey('sharma'));
    expect(phoneticKey('lakshmi')).toBe(phoneticKey('laxmi'));
    expect(jaroWinkler('martha', 'marhta')).toBeCloseTo(0.961, 3);
  });
});
