import { dateOf, type Clock } from '../clock.ts';
import { buildFeeReport, feeReportWindow, type FeeReport, type FeeReportGroup } from '../domain/feeReport.ts';
import { IST_DAY_MS, istDay } from '../domain/istPeriod.ts';
import type { Database } from '../store/Database.ts';
import { PlatformRepository, type PlatformWallet } from '../store/repositories/PlatformRepository.ts';

export interface FeeReportQuery {
  /** IST days (YYYY-MM-DD), both inclusive; `to` defaults to today, `from` to the first day of `to`'s month. */
  from?: string;
  to?: string;
  group: FeeReportGroup;
  merchantId?: string;
}

/** The platform's own books (docs/operator/charging-merchants.md): its wallets and the fees it earned. */
export class PlatformService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  wallets(): Promise<PlatformWallet[]> {
    return PlatformRepository.wallets(this.db);
  }

  /**
   * Fees and GST earned over a window of IST days, net of refunds, by day, merchant or product. Refused (with the
   * reason, for a 400) when a day does not exist, the window is reversed, or it is longer than a year.
   */
  async feeReport(query: FeeReportQuery): Promise<{ ok: true; report: FeeReport } | { ok: false; message: string }> {
    const parsed = feeReportWindow(query.from, query.to, istDay(dateOf(this.clock)));
    if (!parsed.ok) return parsed;
    const { window } = parsed;
    const sums = await PlatformRepository.feeSums(
      this.db,
      { start: window.start, end: window.end, dayMs: IST_DAY_MS },
      query.group,
      query.merchantId,
    );
    return { ok: true, report: buildFeeReport(window, query.group, sums) };
  }
}
