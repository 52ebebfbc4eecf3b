import type { Clock } from '../clock.ts';
import { buildStatement, type Statement } from '../domain/statement.ts';
import type { Database } from '../store/Database.ts';
import { StatementRepository } from '../store/repositories/StatementRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';
import { inScope, type MerchantScope } from './MerchantScope.ts';

/** Most entries one statement holds; a longer range is refused so that one request stays bounded. */
export const STATEMENT_MAX_ENTRIES = 20_000;

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
}
