import { createHash } from 'node:crypto';
import {
  checkArithmetic,
  lookupKeys,
  Matcher,
  newReconId,
  RECON_RESULTS,
  StatementUnbalanced,
  type Known,
  type ReconResult,
  type ReconTransaction,
} from '../domain/reconciliation.ts';
import { istDay, istDayEnd, istDayStart } from '../domain/istPeriod.ts';
import { virtualAccountNamed } from '../domain/bankCredit.ts';
import { StatementUnreadable, type BankStatement } from '../rails/bankfile/bankStatement.ts';
import { readStatementFile, type StatementFileFormat } from '../rails/bankfile/statementFile.ts';
import type { Database, Queryable } from '../store/Database.ts';
import {
  ReconciliationRepository as Repo,
  type NewReconItem,
  type ReconItem,
  type ResultTotal,
  type RunSummary,
} from '../store/repositories/ReconciliationRepository.ts';
import type { Clock } from '../clock.ts';
import { formatPaise } from '@payrail/protocol';
import type { NewException } from '../store/repositories/ExceptionRepository.ts';
import { ExceptionRepository } from '../store/repositories/ExceptionRepository.ts';
import { recordExceptions, reportedOf } from './exceptionRecords.ts';

/** The exceptions queue's source for reconciliation results. */
export const RECONCILIATION_SOURCE = 'reconciliation';

/** Why a result other than matched is an exception, when matching left no note of its own. */
const RESULT_REASON: Record<Exclude<ReconResult, 'matched'>, string> = {
  amount_mismatch: 'the statement moved another amount than Payrail holds for the item',
  unmatched: 'money moved that Payrail does not know of',
  missing: 'SUCCESS in Payrail, but no entry of the statement pays it',
  paid_but_refunded: 'the bank paid a payout that Payrail failed and refunded',
  return_not_applied: 'the bank returned a payout that is still SUCCESS in Payrail',
};

/** A reconciliation item other than matched, as an exception of the queue (recorded once per item). */
function exceptionOfItem(item: ReconItem, runId: string, account: string): NewException {
  const result = item.result as Exclude<ReconResult, 'matched'>;
  return {
    kind: result,
    source: RECONCILIATION_SOURCE,
    sourceRef: runId,
    payoutId: item.payoutId,
    walletId: item.walletId,
    amount: item.amount ?? item.payrailAmount,
    reported: reportedOf({
      account,
      run_id: runId,
      item_id: String(item.id),
      direction: item.direction ?? undefined,
      amount: item.amount ?? undefined,
      currency: item.currency ?? undefined,
      value_date: item.valueDate ?? undefined,
      end_to_end_id: item.endToEndId ?? undefined,
      utr: item.utr ?? undefined,
      bank_reference: item.bankReference ?? undefined,
      return_reason: item.returnReason ?? undefined,
    }),
    held: reportedOf({
      kind: item.matchedKind ?? undefined,
      payout_id: item.payoutId ?? undefined,
      collection_id: item.collectionId ?? undefined,
      deposit_id: item.depositId ?? undefined,
      wallet_id: item.walletId ?? undefined,
      amount: item.payrailAmount === null ? undefined : formatPaise(item.payrailAmount),
    }),
    reason: item.note ?? RESULT_REASON[result],
    reconItemId: item.id,
  };
}

export { StatementUnbalanced, StatementUnreadable };
export type { ReconItem, RunSummary };

/** The connector whose payouts a bank statement must show: payouts paid through bank files. */
export const STATEMENT_CONNECTOR = 'bankfile';

export interface ImportedRun {
  summary: RunSummary;
  /** The same statement was imported before: nothing changed, this is the first import's run. */
  alreadyImported: boolean;
}

export type CloseOutcome =
  { ok: true; item: ReconItem } | { ok: false; reason: 'not_found' | 'not_an_exception' | 'already_closed' };

const clip = (value: string | null, max: number) => (value === null ? null : value.slice(0, max));

/**
 * Imports bank statements and reconciles them (docs/operator/reconciliation.md). A file is read and each of its
 * statements' arithmetic is checked before anything is written; then every statement, its run and its items are
 * recorded in one transaction. The same statement again changes nothing and answers the first import's run.
 */
export class ReconciliationService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    /** PAYRAIL_VA_PREFIX: a credit naming one of its numbers is a deposit's (matched to it, or unmatched saying so). */
    private readonly vaPrefix: string | null = null,
  ) {}

  /**
   * Imports a statement file (camt.053 or MT940; `auto` tells them apart). Throws StatementUnreadable (the file
   * cannot be read: HTTP 400) or StatementUnbalanced (its arithmetic does not add up: HTTP 422); either way
   * nothing is recorded. `actor` is who imports: an operator's name, or the bank-file inbox.
   */
  async importStatement(
    bytes: Buffer,
    format: StatementFileFormat,
    actor: string,
    /**
     * Run in the import's transaction before its statements are matched: the bank-file inbox credits the deposits
     * the statements report there (BankFileDeposits), so that they are matched, and a refused file writes nothing.
     */
    before?: (tx: Queryable, statements: readonly BankStatement[]) => Promise<void>,
  ): Promise<ImportedRun[]> {
    const statements = readStatementFile(bytes, format);
    const seen = new Set<string>();
    for (const s of statements) {
      const key = `${s.account}\n${s.statementId}`;
      if (seen.has(key)) {
        throw new StatementUnreadable(`statement ${s.statementId} of account ${s.account} is in the file twice`);
      }
      seen.add(key);
    }
    const checked = statements.map((s) => {
      try {
        return { statement: s, arithmetic: checkArithmetic(s) };
      } catch (err) {
        if (err instanceof StatementUnbalanced) {
          throw new StatementUnbalanced(`statement ${s.statementId} (account ${s.account}): ${err.message}`);
        }
        throw err;
      }
    });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const runs = await this.db.transaction(async (tx) => {
      await before?.(tx, statements);
      const out: { runId: string; alreadyImported: boolean }[] = [];
      for (const { statement, arithmetic } of checked) {
        out.push(await this.record(tx, statement, arithmetic, sha256, actor));
      }
      return out;
    });
    const answers: ImportedRun[] = [];
    for (const run of runs) {
      answers.push({
        summary: (await Repo.summary(this.db, run.runId)) as RunSummary,
        alreadyImported: run.alreadyImported,
      });
    }
    return answers;
  }

  private async record(
    tx: Queryable,
    s: BankStatement,
    arithmetic: ReturnType<typeof checkArithmetic>,
    sha256: string,
    actor: string,
  ): Promise<{ runId: string; alreadyImported: boolean }> {
    const booked = s.entries.filter((e) => e.status === 'BOOK');
    const statementId = await Repo.insertStatement(tx, {
      id: newReconId('BS', this.clock()),
      format: s.format,
      version: s.version,
      account: s.account.slice(0, 100),
      statementRef: s.statementId.slice(0, 200),
      sha256,
      currency: s.currency,
      periodFrom: s.periodFrom,
      periodTo: s.periodTo,
      openingType: arithmetic.opening.type,
      openingBalance: arithmetic.opening.amount,
      openingDate: arithmetic.opening.date,
      closingType: arithmetic.closing.type,
      closingBalance: arithmetic.closing.amount,
      closingDate: arithmetic.closing.date,
      credits: arithmetic.credits,
      debits: arithmetic.debits,
      forwardValue: arithmetic.forwardAmount,
      entryCount: s.entries.length,
      ignoredEntries: s.entries.length - booked.length,
      importedBy: actor,
    });
    if (statementId === null) {
      const runId = await Repo.runIdOf(tx, s.account.slice(0, 100), s.statementId.slice(0, 200), sha256);
      return { runId: runId as string, alreadyImported: true };
    }

    const forward = new Set(arithmetic.forwardEntries);
    const rows = booked.flatMap((entry) =>
      entry.transactions.map((t, i) => ({
        entry,
        txIndex: entry.detailed ? i + 1 : null,
        t,
        recon: {
          direction: entry.direction,
          amount: t.amount,
          currency: t.currency ?? entry.currency ?? s.currency,
          endToEndId: t.endToEndId,
          utrs: t.utrs,
          references: t.references,
          isReturn: t.isReturn,
          virtualAccount:
            this.vaPrefix !== null && entry.direction === 'credit' && !t.isReturn
              ? virtualAccountNamed(this.vaPrefix, t.parties?.creditorAccount ?? null, t.remittance)
              : null,
        } satisfies ReconTransaction,
      })),
    );
    const matcher = new Matcher(
      await this.lookUp(
        tx,
        rows.map((r) => r.recon),
      ),
    );
    const items: NewReconItem[] = rows.map(({ entry, txIndex, t, recon }) => {
      const m = matcher.match(recon);
      return {
        result: m.result,
        entryIndex: entry.index,
        txIndex,
        direction: entry.direction,
        amount: t.amount,
        currency: clip(recon.currency, 3),
        bookingDate: entry.bookingDate,
        valueDate: entry.valueDate,
        forwardValue: forward.has(entry.index),
        endToEndId: clip(t.endToEndId, 200),
        utr: clip(t.utrs[0] ?? null, 200),
        bankReference: clip(t.bankReference ?? entry.bankReference, 200),
        returnReason: clip(t.returnReason, 50),
        remittance: clip(t.remittance, 500),
        matchedKind: m.kind,
        payoutId: m.payoutId,
        collectionId: m.collectionId,
        depositId: m.depositId,
        ledgerEntryId: m.creditId,
        walletId: m.walletId,
        payrailAmount: m.payrailAmount,
        note: m.note,
      };
    });

    // Payouts are in rupees: an account in another currency cannot have paid them.
    const inRupees = s.currency === null || s.currency === 'INR';
    // The statement's IST days, from the start of the first to the end of the last (its dates are calendar dates).
    const from =
      inRupees && s.periodFrom && s.periodTo && s.periodFrom <= s.periodTo ? istDayStart(s.periodFrom) : null;
    const to = from && s.periodTo ? istDayEnd(s.periodTo) : null;
    if (from && to) {
      const successful = await Repo.successfulPayouts(tx, STATEMENT_CONNECTOR, from, to);
      const missing = new Set(matcher.missing(successful).map((p) => p.id));
      for (const p of successful) {
        if (!missing.has(p.id)) continue;
        const day = istDay(p.succeededAt);
        items.push({
          result: 'missing',
          entryIndex: null,
          txIndex: null,
          direction: 'debit',
          amount: p.amount,
          currency: 'INR',
          bookingDate: null,
          valueDate: day,
          forwardValue: false,
          endToEndId: p.id,
          utr: p.utr || null,
          bankReference: null,
          returnReason: null,
          remittance: null,
          matchedKind: 'payout',
          payoutId: p.id,
          collectionId: null,
          ledgerEntryId: null,
          walletId: null,
          payrailAmount: p.amount,
          note: `SUCCESS in Payrail on ${day} (IST); no entry of the statement pays it`,
        });
      }
    }

    const totals = Object.fromEntries(RECON_RESULTS.map((r) => [r, { count: 0, amount: 0n }])) as Record<
      ReconResult,
      ResultTotal
    >;
    for (const item of items) {
      const total = totals[item.result];
      total.count += 1;
      total.amount += item.amount ?? 0n;
    }
    const runId = newReconId('RR', this.clock());
    await Repo.insertRun(tx, {
      id: runId,
      statementId,
      transactions: rows.length,
      totals,
      forwardValueItems: items.filter((i) => i.forwardValue).length,
      createdBy: actor,
    });
    await Repo.insertItems(tx, runId, items);
    // Every result other than matched goes to the exceptions queue, where the operator works them with the others.
    const open = await Repo.exceptionsOf(tx, runId);
    const exceptions = open.map((item) => exceptionOfItem(item, runId, s.account.slice(0, 100)));
    await recordExceptions(tx, exceptions, this.clock());
    return { runId, alreadyImported: false };
  }

  /** Everything the statement's references may name, in four queries whatever its size. */
  private async lookUp(tx: Queryable, txs: ReconTransaction[]): Promise<Known> {
    const keys = lookupKeys(txs);
    const [byId, byUtr, collections, credits, deposits] = [
      await Repo.payoutsById(tx, keys.payoutIds),
      await Repo.payoutsByUtr(tx, keys.payoutUtrs),
      await Repo.collectionsByUtr(tx, keys.collectionUtrs),
      await Repo.creditsByReference(tx, keys.creditReferences),
      // A credit's UTRs may name a deposit as well as a collection.
      await Repo.depositsByUtr(tx, keys.collectionUtrs),
    ];
    const group = <T>(rows: T[], keyOf: (r: T) => string) => {
      const map = new Map<string, T[]>();
      for (const r of rows) map.set(keyOf(r), [...(map.get(keyOf(r)) ?? []), r]);
      return map;
    };
    return {
      payoutsById: new Map(byId.map((p) => [p.id, p])),
      payoutsByUtr: group(byUtr, (p) => p.utr),
      collectionsByUtr: group(collections, (c) => c.utr),
      creditsByReference: group(credits, (c) => c.reference),
      depositsByUtr: group(deposits, (d) => d.utr),
    };
  }

  page(query: { limit: number; before?: string }): Promise<RunSummary[]> {
    return Repo.page(this.db, query);
  }

  /** A run with every item (open exceptions first), or null. */
  async run(runId: string): Promise<{ summary: RunSummary; items: ReconItem[] } | null> {
    const summary = await Repo.summary(this.db, runId);
    if (!summary) return null;
    return { summary, items: await Repo.items(this.db, runId) };
  }

  /**
   * Closes an exception with the operator's reason; a matched item or a closed one is not closed again. Its entry
   * in the exceptions queue is resolved with it (dismissed), and the other way round (ExceptionService).
   */
  close(runId: string, itemId: bigint, actor: string, reason: string): Promise<CloseOutcome> {
    return this.db.transaction(async (tx): Promise<CloseOutcome> => {
      const item = await Repo.lockItem(tx, runId, itemId);
      if (!item) return { ok: false, reason: 'not_found' };
      if (item.result === 'matched') return { ok: false, reason: 'not_an_exception' };
      if (item.closedAt) return { ok: false, reason: 'already_closed' };
      const exception = await ExceptionRepository.lockByReconItem(tx, itemId);
      if (exception?.state === 'open') {
        await ExceptionRepository.resolve(tx, exception.id, actor, 'dismiss', reason, new Date(this.clock()));
      }
      return { ok: true, item: await Repo.close(tx, itemId, actor, reason) };
    });
  }

  /** Closes a reconciliation item in the caller's transaction (an exception of the queue resolved). */
  static closeWithin(tx: Queryable, itemId: bigint, actor: string, reason: string): Promise<ReconItem> {
    return Repo.close(tx, itemId, actor, reason);
  }
}
