import { istDayStart } from '@payrail/protocol';
import { describe, expect, it } from 'vitest';
import {
  dailyRunDue,
  dailyWindowEnd,
  formatDailyAt,
  isBankingDay,
  parseDailyAt,
  parseReservePercent,
  settlementEventType,
  type SettlementAccount,
} from '../../src/domain/settlement.ts';

const at = (day: string, hh: number, mm = 0, ss = 0) =>
  new Date((istDayStart(day) as Date).getTime() + ((hh * 60 + mm) * 60 + ss) * 1000);

const daily = (over: Partial<SettlementAccount> = {}): SettlementAccount => ({
  merchantId: 'MR1',
  accountNumber: '100000000001',
  ifsc: 'SBOX0000001',
  holderName: 'Holder',
  bankName: '',
  schedule: 'daily',
  atMinute: 11 * 60,
  reserveBp: 0,
  reserveDays: 0,
  activeFrom: at('2026-11-01', 0),
  lastRunDay: null,
  createdAt: at('2026-11-01', 0),
  updatedAt: at('2026-11-01', 0),
  ...over,
});

describe('settlement rules', () => {
  it('knows banking days: not Sundays, not the configured holidays', () => {
    expect(isBankingDay('2026-11-29', new Set())).toBe(false); // a Sunday
    expect(isBankingDay('2026-11-28', new Set())).toBe(true); // a Saturday
    expect(isBankingDay('2026-12-25', new Set(['2026-12-25']))).toBe(false);
    expect(isBankingDay('2026-12-24', new Set(['2026-12-25']))).toBe(true);
  });

  it('runs a daily account once per banking day, from its time (IST), not while its account is held', () => {
    const none = new Set<string>();
    expect(dailyRunDue(daily(), at('2026-12-01', 10, 59, 59), none)).toBe(false);
    expect(dailyRunDue(daily(), at('2026-12-01', 11), none)).toBe(true);
    expect(dailyRunDue(daily({ lastRunDay: '2026-12-01' }), at('2026-12-01', 23), none)).toBe(false);
    expect(dailyRunDue(daily({ lastRunDay: '2026-11-30' }), at('2026-12-01', 23), none)).toBe(true);
    expect(dailyRunDue(daily(), at('2026-11-29', 12), none)).toBe(false); // Sunday
    expect(dailyRunDue(daily(), at('2026-12-01', 12), new Set(['2026-12-01']))).toBe(false);
    expect(dailyRunDue(daily({ activeFrom: at('2026-12-01', 11, 30) }), at('2026-12-01', 11, 15), none)).toBe(false);
    expect(dailyRunDue(daily({ activeFrom: at('2026-12-01', 11, 30) }), at('2026-12-01', 11, 31), none)).toBe(true);
    expect(dailyRunDue(daily({ schedule: 'manual', atMinute: null }), at('2026-12-01', 12), none)).toBe(false);
  });

  it('closes a daily window at the IST midnight before the run: 23:59:59 in, 00:00:00 out', () => {
    const end = dailyWindowEnd(at('2026-12-02', 11));
    expect(at('2026-12-01', 23, 59, 59).getTime()).toBeLessThan(end.getTime());
    expect(at('2026-12-02', 0).getTime()).toBe(end.getTime());
  });

  it('reads times of day and reserve percentages, refusing what is not one', () => {
    expect(parseDailyAt('11:00')).toBe(660);
    expect(parseDailyAt('00:00')).toBe(0);
    expect(parseDailyAt('24:00')).toBeNull();
    expect(parseDailyAt('9:00')).toBeNull();
    expect(formatDailyAt(545)).toBe('09:05');
    expect(parseReservePercent('2.5')).toBe(250);
    expect(parseReservePercent(10)).toBe(1000);
    expect(parseReservePercent('100')).toBe(10_000);
    expect(parseReservePercent('0')).toBe(0);
    expect(parseReservePercent('100.01')).toBeNull();
    expect(parseReservePercent('1.234')).toBeNull();
    expect(parseReservePercent(-1)).toBeNull();
  });

  it('names one event per state', () => {
    expect(settlementEventType('INITIATED')).toBe('settlement.initiated');
    expect(settlementEventType('REFUNDED')).toBe('settlement.refunded');
  });
});
