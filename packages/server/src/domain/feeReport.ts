import { IST_DAY_MS, istDay, istDayEnd, istDayStart } from './istPeriod.ts';

/**
 * The platform's fee report (GET /admin/v1/platform/fees): fees earned and GST collected over a window of IST days,
 * by day, merchant or product. Pure: the window and the rows' shape; the sums are the database's.
 */

export type FeeReportGroup = 'day' | 'merchant' | 'product';

/** The longest window one report reads: a year, leap day included. */
export const FEE_REPORT_MAX_DAYS = 366;

export interface FeeWindow {
  /** The first and last IST day, both inclusive (YYYY-MM-DD). */
  from: string;
  to: string;
  /** The instants the window begins (00:00 IST of `from`) and ends (00:00 IST of the day after `to`). */
  start: Date;
  end: Date;
  days: number;
}

/**
 * The window of IST days `from`..`to`, both inclusive. `to` defaults to `today` (IST), `from` to the first day of
 * `to`'s month. A message for a day that does not exist, a reversed window, or one over FEE_REPORT_MAX_DAYS.
 */
export function feeReportWindow(
  from: string | undefined,
  to: string | undefined,
  today: string,
): { ok: true; window: FeeWindow } | { ok: false; message: string } {
  const last = to || today;
  const first = from || `${last.slice(0, 7)}-01`;
  const start = istDayStart(first);
  if (!start) return { ok: false, message: 'from must be a day like 2026-11-22' };
  const end = istDayEnd(last);
  if (!end) return { ok: false, message: 'to must be a day like 2026-11-22' };
  if (start >= end) return { ok: false, message: 'from must not be after to' };
  const days = Math.round((end.getTime() - start.getTime()) / IST_DAY_MS);
  if (days > FEE_REPORT_MAX_DAYS) {
    return { ok: false, message: `the window is ${days} days; a report covers at most ${FEE_REPORT_MAX_DAYS}` };
  }
  return { ok: true, window: { from: first, to: last, start, end, days } };
}

/** The IST day `index` days into the window (0 = `from`). */
export function windowDay(window: FeeWindow, index: number): string {
  return istDay(new Date(window.start.getTime() + index * IST_DAY_MS));
}

/** What one group earned, in paise: net of refunds, so any of them may be negative. */
export interface FeeFigures {
  count: bigint;
  fees: bigint;
  tax: bigint;
}

export interface FeeReportRow extends FeeFigures {
  key: string;
}

export interface FeeReport {
  window: FeeWindow;
  group: FeeReportGroup;
  rows: FeeReportRow[];
  total: FeeFigures;
}

/**
 * The report from the database's sums: by day, every day of the window in order (a day nothing moved is zeros), the
 * sums keyed by day index; otherwise the sums as they come (ordered by key). The total is the rows' sum.
 */
export function buildFeeReport(
  window: FeeWindow,
  group: FeeReportGroup,
  sums: readonly (FeeFigures & { key: string | number })[],
): FeeReport {
  let rows: FeeReportRow[];
  if (group === 'day') {
    const byDay = new Map(sums.map((s) => [Number(s.key), s]));
    rows = Array.from({ length: window.days }, (_, i) => {
      const s = byDay.get(i);
      return { key: windowDay(window, i), count: s?.count ?? 0n, fees: s?.fees ?? 0n, tax: s?.tax ?? 0n };
    });
  } else {
    rows = sums.map((s) => ({ key: String(s.key), count: s.count, fees: s.fees, tax: s.tax }));
  }
  const total = rows.reduce<FeeFigures>(
    (t, r) => ({ count: t.count + r.count, fees: t.fees + r.fees, tax: t.tax + r.tax }),
    { count: 0n, fees: 0n, tax: 0n },
  );
  return { window, group, rows, total };
}
