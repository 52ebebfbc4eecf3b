import { describe, expect, it } from 'vitest';
import { istDateTime, istDay, istDayEnd, istDayStart, istDayStartOf, istMonth } from '../../src/domain/istPeriod.ts';

describe('istPeriod', () => {
  it('puts an instant in its India Standard Time (UTC+05:30) day', () => {
    expect(istDay(new Date('2026-03-10T00:00:00.000Z'))).toBe('2026-03-10');
    expect(istDay(new Date('2026-03-10T18:29:59.999Z'))).toBe('2026-03-10');
    expect(istDay(new Date('2026-03-10T18:30:00.000Z'))).toBe('2026-03-11');
    // 00:00 IST is still the previous UTC day.
    expect(istDay(new Date('2026-03-10T20:00:00.000Z'))).toBe('2026-03-11');
  });

  it('changes month and year at midnight IST, not UTC', () => {
    expect(istMonth(new Date('2026-01-31T18:29:59.999Z'))).toBe('2026-01');
    expect(istMonth(new Date('2026-01-31T18:30:00.000Z'))).toBe('2026-02');
    expect(istDay(new Date('2025-12-31T18:30:00.000Z'))).toBe('2026-01-01');
    expect(istMonth(new Date('2025-12-31T18:29:59.999Z'))).toBe('2025-12');
    expect(istMonth(new Date('2025-12-31T18:30:00.000Z'))).toBe('2026-01');
  });

  it('handles a leap day', () => {
    expect(istDay(new Date('2028-02-28T18:30:00.000Z'))).toBe('2028-02-29');
    expect(istDay(new Date('2028-02-29T18:30:00.000Z'))).toBe('2028-03-01');
    expect(istMonth(new Date('2028-02-29T18:30:00.000Z'))).toBe('2028-03');
  });

  it('has no daylight saving: the same offset in January and in July', () => {
    expect(istDay(new Date('2026-07-15T18:29:59.999Z'))).toBe('2026-07-15');
    expect(istDay(new Date('2026-07-15T18:30:00.000Z'))).toBe('2026-07-16');
  });

  it('does not depend on the process time zone', () => {
    const at = new Date('2026-05-31T19:00:00.000Z');
    const expected = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kolkata' }).format(at);
    expect(istDay(at)).toBe(expected);
    expect(istMonth(at)).toBe(expected.slice(0, 7));
  });

  it('writes an instant as IST wall time with its offset', () => {
    expect(istDateTime(new Date('2026-03-10T18:29:59.999Z'))).toBe('2026-03-10T23:59:59+05:30');
    expect(istDateTime(new Date('2026-03-10T18:30:00.000Z'))).toBe('2026-03-11T00:00:00+05:30');
    expect(new Date(istDateTime(new Date('2026-07-15T04:05:06.000Z'))).toISOString()).toBe('2026-07-15T04:05:06.000Z');
  });

  it('bounds an IST day: from its 00:00 IST to the next day 24 hours later; no such day is null', () => {
    expect(istDayStart('2026-03-11')?.toISOString()).toBe('2026-03-10T18:30:00.000Z');
    expect(istDayEnd('2026-03-11')?.toISOString()).toBe('2026-03-11T18:30:00.000Z');
    expect(istDayEnd('2028-02-29')?.toISOString()).toBe('2028-02-29T18:30:00.000Z');
    for (const notADay of ['2026-02-30', '2026-13-01', '2026-3-1', '', 'tomorrow']) {
      expect(istDayStart(notADay)).toBeNull();
      expect(istDayEnd(notADay)).toBeNull();
    }
  });

  it('finds the start of the IST day an instant is in', () => {
    expect(istDayStartOf(new Date('2026-03-10T18:29:59.999Z')).toISOString()).toBe('2026-03-09T18:30:00.000Z');
    expect(istDayStartOf(new Date('2026-03-10T18:30:00.000Z')).toISOString()).toBe('2026-03-10T18:30:00.000Z');
    expect(istDayStartOf(new Date('2026-03-10T20:00:00.000Z')).toISOString()).toBe('2026-03-10T18:30:00.000Z');
    // Before 1970 too (a negative time).
    expect(istDayStartOf(new Date('1969-12-31T20:00:00.000Z')).toISOString()).toBe('1969-12-31T18:30:00.000Z');
    for (const at of ['2026-01-01T00:00:00.000Z', '2026-05-31T19:00:00.000Z', '2028-02-29T18:29:00.000Z']) {
      const start = istDayStartOf(new Date(at));
      expect(istDay(start)).toBe(istDay(new Date(at)));
      expect(start.getTime()).toBe(istDayStart(istDay(new Date(at)))?.getTime());
    }
  });
});
