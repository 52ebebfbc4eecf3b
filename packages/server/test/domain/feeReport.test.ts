import { describe, expect, it } from 'vitest';
import { buildFeeReport, feeReportWindow, type FeeWindow } from '../../src/domain/feeReport.ts';
import { entryDescription } from '../../src/domain/statement.ts';

const windowOf = (from: string | undefined, to: string | undefined, today = '2026-11-28'): FeeWindow => {
  const parsed = feeReportWindow(from, to, today);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.window;
};

describe('the fee report window', () => {
  it('runs from the start of `from` to the end of `to` in IST, both inclusive', () => {
    expect(windowOf('2026-11-01', '2026-11-02')).toEqual({
      from: '2026-11-01',
      to: '2026-11-02',
      start: new Date('2026-10-31T18:30:00.000Z'),
      end: new Date('2026-11-02T18:30:00.000Z'),
      days: 2,
    });
  });

  it('defaults to the month so far: `to` today, `from` the first day of its month', () => {
    expect(windowOf(undefined, undefined, '2026-11-28')).toMatchObject({ from: '2026-11-01', to: '2026-11-28' });
    expect(windowOf(undefined, '2026-02-14')).toMatchObject({ from: '2026-02-01', days: 14 });
    expect(windowOf('2026-11-20', undefined, '2026-11-28')).toMatchObject({ to: '2026-11-28', days: 9 });
  });

  it('takes at most 366 days, and only days that exist, in order', () => {
    expect(windowOf('2024-01-01', '2024-12-31').days).toBe(366);
    expect(feeReportWindow('2024-01-01', '2025-01-01', '2026-11-28')).toMatchObject({ ok: false });
    expect(feeReportWindow('2026-02-29', '2026-03-01', '2026-11-28')).toEqual({
      ok: false,
      message: 'from must be a day like 2026-11-22',
    });
    expect(feeReportWindow('2026-03-01', '2026-02-30', '2026-11-28')).toMatchObject({ ok: false });
    expect(feeReportWindow('2026-03-02', '2026-03-01', '2026-11-28')).toEqual({
      ok: false,
      message: 'from must not be after to',
    });
    expect(windowOf('2026-03-01', '2026-03-01').days).toBe(1);
  });
});

describe('the fee report', () => {
  const w = windowOf('2026-02-27', '2026-03-02');

  it('has a row for every day of the window, keyed by IST day, and the total of the rows', () => {
    const report = buildFeeReport(w, 'day', [
      { key: 1, count: 2n, fees: 1000n, tax: 180n },
      { key: 3, count: -1n, fees: -500n, tax: -90n },
    ]);
    expect(report.rows).toEqual([
      { key: '2026-02-27', count: 0n, fees: 0n, tax: 0n },
      { key: '2026-02-28', count: 2n, fees: 1000n, tax: 180n },
      { key: '2026-03-01', count: 0n, fees: 0n, tax: 0n },
      { key: '2026-03-02', count: -1n, fees: -500n, tax: -90n },
    ]);
    expect(report.total).toEqual({ count: 1n, fees: 500n, tax: 90n });
  });

  it('keeps other groups as the database keyed them', () => {
    const report = buildFeeReport(w, 'product', [
      { key: 'IMPS', count: 3n, fees: 1500n, tax: 270n },
      { key: 'UPI_COLLECTION', count: 1n, fees: 200n, tax: 36n },
    ]);
    expect(report.rows.map((r) => r.key)).toEqual(['IMPS', 'UPI_COLLECTION']);
    expect(report.total).toEqual({ count: 4n, fees: 1700n, tax: 306n });
    expect(buildFeeReport(w, 'merchant', []).total).toEqual({ count: 0n, fees: 0n, tax: 0n });
  });
});

describe('statement descriptions', () => {
  it('say each kind in words, and a kind without words of its own as the kind', () => {
    expect(entryDescription('payout_fee_gst_refund')).toBe('GST on payout fee refunded');
    expect(entryDescription('collection_fee')).toBe('Collection fee');
    expect(entryDescription('lien_enforced')).toBe('Lien enforced');
  });
});
