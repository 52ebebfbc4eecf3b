import { describe, expect, it } from 'vitest';
import { istHourStartOf } from '../src/istTime.ts';

/** IST hours begin at hh:30 UTC (IST is UTC+05:30): the console's chart buckets by them. */
describe('istHourStartOf', () => {
  it('gives the start of the IST hour an instant falls in', () => {
    expect(istHourStartOf(new Date('2026-11-28T10:45:12.345Z')).toISOString()).toBe('2026-11-28T10:30:00.000Z');
    expect(istHourStartOf(new Date('2026-11-28T10:29:59.999Z')).toISOString()).toBe('2026-11-28T09:30:00.000Z');
    expect(istHourStartOf(new Date('2026-11-28T10:30:00.000Z')).toISOString()).toBe('2026-11-28T10:30:00.000Z');
    // 00:10 IST on 29 November is 18:40 UTC on the 28th: that IST hour began at 18:30 UTC.
    expect(istHourStartOf(new Date('2026-11-28T18:40:00.000Z')).toISOString()).toBe('2026-11-28T18:30:00.000Z');
    expect(istHourStartOf(new Date('1969-12-31T23:59:00.000Z')).toISOString()).toBe('1969-12-31T23:30:00.000Z');
  });
});
