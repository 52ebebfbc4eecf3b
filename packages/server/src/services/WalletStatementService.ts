import type { Clock } from '../clock.ts';
import {
  buildStatement,
  carryBalances,
  openingTotals,
  type Statement,
  type StatementEntry,
} from '../domain/statement.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { StatementRepository } from '../store/repositories/StatementRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';
import { inScope, type MerchantScope } from './MerchantScope.ts';

/**
 * Most entries a statement answered as one JSON document holds (it is built whole in memory); a longer range is
 * refused, and CSV or JSON lines (streamed, no cap) carry it instead.
 */
export const STATEMENT_MAX_ENTRIES = 20_000;

/**
 * Entries a streamed statement reads per statement: each page is written out before the next is read, so the
 * server holds two pages at most whatever the range (about a megabyte), and a page costs one index range scan.
 */
export const STATEMENT_PAGE_ENTRIES = 2_000;

/** What a streamed statement knows before its first entry. */
export interface StatementHead {
  walletId: string;
  from: Date | null;
  to: Date | null;
  opening: bigint;
  /** When it was read (the composition root's clock): the end of a statement without `to`. */
  readAt: Date;
  /** The first entry's time (null: no entry), what a statement without `from` starts at. */
  firstAt: Date | null;
}

/** What a streamed statement adds up to, after its last entry. */
export interface StatementEnd {
  closing: bigint;
  credits: bigint;
  debits: bigint;
  entries: number;
}

/**
 * Where a streamed statement goes (the HTTP answer): `start` once the wallet is found and before any entry, then
 * each page of entries in ledger order, then `end`. `page` and `end` resolve when the receiver can take more, which
 * is what bounds the memory: the next page is not read until then.
 */
export interface StatementSink {
  start(head: StatementHead): void;
  page(entries: StatementEntry[]): Promise<void>;
  end(totals: StatementEnd): Promise<void>;
}

export type StatementOutcome =
  | {
      ok: true;
      statement: Statement;
      /** When it was read (the composition root's clock): the end of a statement without `to`. */
      readAt: Date;
    }
  | { ok: false; reason: 'not_found' | 'too_many_entries' };

/** Wallet statements: opening balance, entries with running balance, closing balance. */
export class WalletStatementService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Read in one transaction, so that the opening balance and the entries are one consistent snapshot. A wallet
   * outside `scope` is not_found, before any of its entries is read.
   */
  async statement(
    walletId: string,
    range: { from: Date | null; to: Date | null },
    scope?: MerchantScope,
  ): Promise<StatementOutcome> {
    return this.db.transaction(async (tx): Promise<StatementOutcome> => {
      // Both queries see the same committed ledger.
      await StatementRepository.readOneSnapshot(tx);
      const wallet = await WalletRepository.findById(tx, walletId);
      if (!wallet || !inScope(scope, wallet.merchantId)) return { ok: false, reason: 'not_found' };
      const opening = await StatementRepository.openingBalance(tx, walletId, range.from);
      const rows = await StatementRepository.entries(tx, walletId, range, STATEMENT_MAX_ENTRIES + 1);
      if (rows.length > STATEMENT_MAX_ENTRIES) return { ok: false, reason: 'too_many_entries' };
      return {
        ok: true,
        statement: buildStatement(walletId, range, opening, rows),
        readAt: new Date(this.clock()),
      };
    });
  }

  /**
   * A statement of any length, page by page into `sink` (CSV and JSON lines): 'not_found' before `start` for a wallet
   * that is not there or outside `scope`. One snapshot on both engines, as `statement` reads:
   * - PostgreSQL: one REPEATABLE READ, READ ONLY transaction for the whole stream, its pages keyset by id. It holds
   *   one pool connection while the receiver takes the answer (a slow download holds it longer).
   * - PGlite: no transaction (one held open for a download would stop every other write of the server, PGlite being
   *   one connection); the opening balance and the ledger's last id are read in one statement, and each page is a
   *   statement of its own up to that id, which on PGlite's one connection is the ledger as it was then.
   */
  async stream(
    walletId: string,
    range: { from: Date | null; to: Date | null },
    sink: StatementSink,
    scope?: MerchantScope,
  ): Promise<'not_found' | 'sent'> {
    if (this.db.engine === 'postgres') {
      let started = false;
      return this.db.transaction(async (tx): Promise<'not_found' | 'sent'> => {
        // The driver runs a transaction again after a stale plan or a victim's rollback; once lines have gone out,
        // a second run would send them twice, so it fails instead (the answer is cut short: no closing line).
        if (started) throw new Error('statement stream cannot run again after its first lines');
        await StatementRepository.readOnlySnapshot(tx);
        const wallet = await WalletRepository.findById(tx, walletId);
        if (!wallet || !inScope(scope, wallet.merchantId)) return 'not_found';
        const opening = await StatementRepository.openingBalance(tx, walletId, range.from);
        const span = await StatementRepository.idSpan(tx, walletId, range);
        await this.pump(tx, walletId, range, opening, span, sink, () => {
          started = true;
        });
        return 'sent';
      });
    }
    const wallet = await WalletRepository.findById(this.db, walletId);
    if (!wallet || !inScope(scope, wallet.merchantId)) return 'not_found';
    const { opening, lastId } = await StatementRepository.openingBalanceAndLastId(this.db, walletId, range.from);
    // Read after lastId: an entry of the range written since has a higher id, which upTo leaves out.
    const span = await StatementRepository.idSpan(this.db, walletId, range);
    const upTo = span.upTo === null || span.upTo > lastId ? lastId : span.upTo;
    await this.pump(this.db, walletId, range, opening, { after: span.after, upTo }, sink, () => {});
    return 'sent';
  }

  /** Reads the pages and hands them on; the next page is read while the receiver takes this one. */
  private async pump(
    q: Queryable,
    walletId: string,
    range: { from: Date | null; to: Date | null },
    opening: bigint,
    span: { after: bigint; upTo: bigint | null },
    sink: StatementSink,
    onStart: () => void,
  ): Promise<void> {
    const page = (after: bigint) =>
      StatementRepository.entryPage(q, walletId, range, { after, upTo: span.upTo }, STATEMENT_PAGE_ENTRIES);
    const totals = openingTotals(opening);
    let rows = await page(span.after);
    onStart();
    sink.start({ walletId, ...range, opening, readAt: new Date(this.clock()), firstAt: rows[0]?.at ?? null });
    while (rows.length > 0) {
      const last = rows[rows.length - 1] as Omit<StatementEntry, 'balance'>;
      const next = rows.length === STATEMENT_PAGE_ENTRIES ? page(last.id) : null;
      // If the receiver fails, the read ahead must not surface as an unhandled rejection.
      next?.catch(() => {});
      await sink.page(carryBalances(totals, rows));
      rows = next ? await next : [];
    }
    await sink.end({
      closing: totals.balance,
      credits: totals.credits,
      debits: totals.debits,
      entries: totals.entries,
    });
  }
}
