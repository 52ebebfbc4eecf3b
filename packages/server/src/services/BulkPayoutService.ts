import {
  formatPaise,
  isSenderId,
  PayoutCodes,
  withMessage,
  type BulkItemVerdictWire,
  type BulkResultWire,
  type BulkStatusWire,
  type CodeDef,
  type Scheme,
} from '@payrail/protocol';
import { MAX_CALLBACK_URL_LENGTH } from '../domain/callbackUrl.ts';
import type { Merchant, Wallet } from '../domain/Merchant.ts';
import type { Payout } from '../domain/Payout.ts';
import type { PayoutBatch } from '../domain/PayoutBatch.ts';
import { RequestRejected } from '../domain/RequestRejected.ts';
import type { Metrics } from '../observability/Metrics.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { BatchRepository, type BatchCandidate, type RecordedVerdict } from '../store/repositories/BatchRepository.ts';
import { MerchantRepository } from '../store/repositories/MerchantRepository.ts';
import { JobRepository } from '../store/repositories/JobRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';
import { batchStatusCounts, enqueueBatchCompleted } from './BatchCompletion.ts';
import type { CallbackPolicy } from './CallbackPolicy.ts';
import type { CheckedRequest, PayoutService } from './PayoutService.ts';
import { scopedQuery, type MerchantScope } from './MerchantScope.ts';
import type { Clock } from '../clock.ts';

export const MAX_BATCH_ITEMS = 1000;
/** Items per page of GET /payout/v1/bulk/status. */
export const STATUS_PAGE_SIZE = 200;

/** What a bulk request is answered with: the envelope code and the (plaintext) data. */
export interface BulkAnswer {
  def: CodeDef;
  data: BulkResultWire;
}

/** The refusals the batch's SQL function answers by number, keyed by their code in protocol's table. */
const CODE_DEFS: Record<number, CodeDef> = Object.fromEntries(
  [
    PayoutCodes.insufficientBalance,
    PayoutCodes.duplicateSenderId,
    PayoutCodes.dailyLimitExceeded,
    PayoutCodes.monthlyLimitExceeded,
    PayoutCodes.commercialsMissing,
  ].map((def) => [def.code, def]),
);

const WOULD_INITIATE = 'Transaction would be initiated (dry run)';
const HELD_BACK = 'Item passes its checks; not initiated because another item of this atomic batch failed';

/** Ends the batch's transaction without committing it (dry runs and refused atomic batches). */
class Rollback extends Error {
  constructor(readonly verdicts: RecordedVerdict[]) {
    super('batch rolled back');
  }
}

class DuplicateBatch extends Error {}

function invalid(field: string, rule: string): never {
  throw new RequestRejected(withMessage(PayoutCodes.invalidField, `Invalid ${field}: ${rule}`));
}

function optionalBoolean(plain: Record<string, unknown>, field: string): boolean {
  const value = plain[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') invalid(field, 'true or false');
  return value as boolean;
}

/**
 * Bulk payouts (docs/merchant/bulk-and-verification.md). Every item goes through the same checks as a single initiation, in the same
 * order; those that need no database run here, item by item (they are pure, and the wallets and callback URLs
 * are looked up once per batch); the rest (4009 against history and the batch itself, the bank refusals in their
 * place, 4002, 4010, 4011 as the earlier accepted items leave the balances) run in one SQL function inside one
 * transaction that locks each wallet once. A dry run and a refused atomic batch run exactly the same transaction
 * and roll it back, so their verdicts are the ones a real run would give.
 */
export class BulkPayoutService {
  constructor(
    private readonly db: Database,
    private readonly payouts: PayoutService,
    private readonly callbackPolicy: CallbackPolicy,
    private readonly metrics: Metrics,
    private readonly clock: Clock,
  ) {}

  /**
   * The batch statement records every item on the first item's connector; items whose payment mode is routed to
   * another (PAYRAIL_CONNECTOR_ROUTES) move to theirs, with their first step timed for it, in the same transaction.
   */
  private async routeByMode(tx: Queryable, accepted: Payout[], recordedRail: string | undefined): Promise<void> {
    if (this.payouts.connectorRegistry.routesEverythingToDefault || recordedRail === undefined) return;
    // One update and one job statement per connector, not per item: a batch holds up to 1,000.
    const byRail = new Map<string, string[]>();
    for (const payout of accepted) {
      if (payout.rail === recordedRail) continue;
      const ids = byRail.get(payout.rail) ?? [];
      ids.push(payout.id);
      byRail.set(payout.rail, ids);
    }
    for (const [rail, ids] of byRail) {
      await PayoutRepository.setRail(tx, ids, rail);
      await JobRepository.scheduleMany(tx, 'payout.advance', ids, this.payouts.firstStepDelayMs(rail) ?? 0);
    }
  }

  async submit(merchant: Merchant, scheme: Scheme, plain: Record<string, unknown>): Promise<BulkAnswer> {
    const batchId = plain.batch_id;
    if (!isSenderId(batchId)) invalid('batch_id', '1-50 characters of A-Z a-z 0-9 . _ -');
    const items = plain.items;
    if (!Array.isArray(items) || items.length === 0 || items.length > MAX_BATCH_ITEMS) {
      throw new RequestRejected(PayoutCodes.batchSize);
    }
    const dryRun = optionalBoolean(plain, 'dry_run');
    const atomic = optionalBoolean(plain, 'atomic');
    const callbackUrl = plain.callback_url ?? null;
    const checkCallback = this.callbackChecker();
    if (callbackUrl !== null && callbackUrl !== '') {
      if (typeof callbackUrl !== 'string' || callbackUrl.length > MAX_CALLBACK_URL_LENGTH) {
        invalid('callback_url', `an http(s) URL of at most ${MAX_CALLBACK_URL_LENGTH} characters`);
      }
      const problem = await checkCallback(callbackUrl as string);
      if (problem) invalid('callback_url', problem);
    }

    // The checks before 4009, item by item, with the batch's wallets fetched in one query.
    const wallets = await this.walletsOf(items);
    const findWallet = async (id: string) => wallets.get(id) ?? null;
    const verdicts: (RecordedVerdict & { def: CodeDef })[] = [];
    const checked: { index: number; request: CheckedRequest }[] = [];
    for (let index = 0; index < items.length; index++) {
      const item: unknown = items[index];
      const senderId = (item as { sender_id?: unknown } | null)?.sender_id;
      const base = { index, senderId: typeof senderId === 'string' ? senderId : '', payoutId: null };
      try {
        if (item === null || typeof item !== 'object' || Array.isArray(item)) {
          throw new RequestRejected(withMessage(PayoutCodes.undecryptable, 'Invalid item: not a JSON object'));
        }
        const request = await this.payouts.checkRequest(
          merchant,
          item as Record<string, unknown>,
          findWallet,
          checkCallback,
        );
        checked.push({ index, request });
        verdicts.push({ ...base, code: 0, message: '', def: PayoutCodes.initiated });
      } catch (err) {
        if (!(err instanceof RequestRejected)) throw err;
        verdicts.push({ ...base, code: err.def.code, message: err.def.message, def: err.def });
      }
    }
    const bankRefusals = await this.payouts.bankRefusals(
      merchant,
      checked.map((c) => c.request),
    );
    const now = new Date(this.clock());
    const candidates: (BatchCandidate & { index: number; bankRefusal: CodeDef | null })[] = checked.map((c, k) => ({
      index: c.index,
      payout: { ...this.payouts.draft(merchant, scheme, c.request, now), batchId },
      bankCode: bankRefusals[k]?.code ?? null,
      bankRefusal: bankRefusals[k] ?? null,
    }));

    let recorded: RecordedVerdict[];
    let committed = false;
    // A deadlock victim is run again by the database layer (store/pgDatabase.ts), as every transaction is.
    try {
      recorded = await this.db.transaction((tx) =>
        this.apply(tx, merchant, scheme, batchId as string, {
          atomic,
          dryRun,
          callbackUrl: callbackUrl === '' ? null : (callbackUrl as string | null),
          itemCount: items.length,
          at: now,
          verdicts,
          candidates,
        }),
      );
      committed = true;
    } catch (err) {
      if (err instanceof Rollback) recorded = err.verdicts;
      else if (err instanceof DuplicateBatch) {
        const existing = await this.existingResult(merchant.id, batchId as string);
        throw new RequestRejected(PayoutCodes.duplicateBatchId, existing ?? undefined);
      } else throw err;
    }

    const payouts = new Map(candidates.map((c) => [c.index, c.payout]));
    const result = this.result(batchId as string, dryRun, atomic, recorded, payouts, committed);
    if (committed) {
      for (const v of recorded) {
        if (v.code === 2000) this.metrics.payoutsInitiated.inc({ mode: (payouts.get(v.index) as Payout).paymentMode });
        else this.metrics.payoutsRejected.inc({ code: String(v.code) });
      }
    }
    const refused = result.summary.refused > 0;
    if (atomic && refused) return { def: PayoutCodes.batchRefused, data: result };
    return { def: dryRun ? PayoutCodes.batchChecked : PayoutCodes.batchProcessed, data: result };
  }

  /** The database part of a batch, in one transaction: see the class comment. */
  private async apply(
    tx: Queryable,
    merchant: Merchant,
    scheme: Scheme,
    batchId: string,
    b: {
      atomic: boolean;
      dryRun: boolean;
      callbackUrl: string | null;
      itemCount: number;
      at: Date;
      verdicts: (RecordedVerdict & { def: CodeDef })[];
      candidates: (BatchCandidate & { index: number; bankRefusal: CodeDef | null })[];
    },
  ): Promise<RecordedVerdict[]> {
    // The merchant as it is now (the token check's copy may be up to PAYRAIL_MERCHANT_CACHE_MS old): suspended or
    // rotated since means 4001, and the allowances are today's.
    const terms = await MerchantRepository.paymentTerms(tx, merchant.id);
    if (!terms || terms.status !== 'active' || terms.credentialsVersion !== merchant.credentialsVersion) {
      throw new RequestRejected(PayoutCodes.unauthorized);
    }
    if (b.dryRun) {
      if (await BatchRepository.find(tx, merchant.id, batchId)) throw new DuplicateBatch();
    } else {
      const inserted = await BatchRepository.insert(tx, {
        merchantId: merchant.id,
        batchId,
        atomic: b.atomic,
        callbackUrl: b.callbackUrl,
        scheme,
        itemCount: b.itemCount,
        createdAt: b.at,
      });
      if (!inserted) throw new DuplicateBatch();
    }
    const first = b.candidates[0]?.payout;
    const outcomes = first
      ? await BatchRepository.openPayouts(
          tx,
          {
            merchantId: merchant.id,
            batchId,
            scheme,
            statusMessage: first.statusMessage,
            rail: first.rail,
            istDay: first.istDay,
            istMonth: first.istMonth,
            at: b.at,
            dailyLimit: terms.dailyLimit,
            monthlyLimit: terms.monthlyLimit,
            firstStepDelayMs: this.payouts.firstStepDelayMs(first.rail),
            gstRateBp: this.payouts.commercialTerms.gstRateBp,
            requirePricing: this.payouts.commercialTerms.requirePricing,
          },
          b.candidates,
        )
      : [];
    const codes = outcomes.map((o) => o.code);
    const verdicts: RecordedVerdict[] = b.verdicts.map(({ def: _def, ...v }) => ({ ...v }));
    let accepted = 0;
    let amount = 0n;
    b.candidates.forEach((c, k) => {
      const code = codes[k] as number;
      const verdict = verdicts[c.index] as RecordedVerdict;
      const def = code === 2000 ? PayoutCodes.initiated : code === c.bankCode ? c.bankRefusal : CODE_DEFS[code];
      verdict.code = code;
      verdict.message = def?.message ?? '';
      if (code === 2000) {
        // What the database charged: the answer (a dry run's too) shows it.
        c.payout.fee = outcomes[k]?.fee ?? 0n;
        c.payout.tax = outcomes[k]?.tax ?? 0n;
        accepted++;
        amount += c.payout.amount;
        verdict.payoutId = c.payout.id;
      }
    });
    const refused = verdicts.length - accepted;
    if (b.dryRun || (b.atomic && refused > 0)) throw new Rollback(verdicts);
    await this.routeByMode(
      tx,
      b.candidates.filter((_, k) => codes[k] === 2000).map((c) => c.payout),
      first?.rail,
    );
    const now = new Date(this.clock());
    const completedAt = accepted === 0 ? now : null;
    await BatchRepository.recordVerdicts(tx, merchant.id, batchId, verdicts, {
      accepted,
      amountAccepted: amount,
      completedAt,
    });
    if (accepted === 0) {
      // Nothing to wait for: every item was refused, so the batch is complete as it is recorded.
      const batch = (await BatchRepository.find(tx, merchant.id, batchId)) as PayoutBatch;
      await enqueueBatchCompleted(tx, batch, now);
    }
    return verdicts;
  }

  private result(
    batchId: string,
    dryRun: boolean,
    atomic: boolean,
    verdicts: RecordedVerdict[],
    payouts: Map<number, Payout>,
    committed: boolean,
  ): BulkResultWire {
    let accepted = 0;
    let amount = 0n;
    let fees = 0n;
    let tax = 0n;
    const refusedAtomic = atomic && verdicts.some((v) => v.code !== 2000);
    const items = verdicts.map((v): BulkItemVerdictWire => {
      const item: BulkItemVerdictWire = {
        index: v.index,
        sender_id: v.senderId,
        resp_code: v.code,
        resp_message: v.message,
      };
      if (v.code !== 2000) return item;
      accepted++;
      const payout = payouts.get(v.index);
      if (!payout) return item;
      amount += payout.amount;
      fees += payout.fee;
      tax += payout.tax;
      const charged = { fees: formatPaise(payout.fee), tax: formatPaise(payout.tax) };
      if (committed) return { ...item, transaction_id: payout.id, status: payout.status, ...charged };
      // Not recorded: a dry run, or an item held back by an atomic batch's refusal.
      return { ...item, resp_message: refusedAtomic ? HELD_BACK : WOULD_INITIATE, ...charged };
    });
    return {
      batch_id: batchId,
      dry_run: dryRun,
      atomic,
      summary: {
        accepted,
        refused: verdicts.length - accepted,
        amount_accepted: formatPaise(amount),
        fees: formatPaise(fees),
        tax: formatPaise(tax),
      },
      items,
    };
  }

  /** An existing batch answered as it was when accepted, with its payouts' current status (4009 `data`). */
  private async existingResult(merchantId: string, batchId: string): Promise<BulkResultWire | null> {
    const batch = await BatchRepository.find(this.db, merchantId, batchId);
    if (!batch) return null;
    const items = await BatchRepository.items(this.db, merchantId, batchId, -1, MAX_BATCH_ITEMS);
    return {
      batch_id: batchId,
      dry_run: false,
      atomic: batch.atomic,
      summary: {
        accepted: batch.accepted,
        refused: batch.itemCount - batch.accepted,
        amount_accepted: formatPaise(batch.amountAccepted),
        fees: formatPaise(items.reduce((sum, i) => sum + (i.fee ?? 0n), 0n)),
        tax: formatPaise(items.reduce((sum, i) => sum + (i.tax ?? 0n), 0n)),
      },
      items: items.map((i) => ({
        index: i.index,
        sender_id: i.senderId,
        resp_code: i.code,
        resp_message: i.message,
        ...(i.payoutId
          ? {
              transaction_id: i.payoutId,
              status: i.status ?? undefined,
              fees: formatPaise(i.fee ?? 0n),
              tax: formatPaise(i.tax ?? 0n),
            }
          : {}),
      })),
    };
  }

  /** GET /payout/v1/bulk/status: the summary by status and one page of items (after item `afterIndex`). */
  async status(merchantId: string, batchId: string, afterIndex: number): Promise<BulkStatusWire | null> {
    if (!isSenderId(batchId)) return null;
    const batch = await BatchRepository.find(this.db, merchantId, batchId);
    if (!batch) return null;
    const page = await BatchRepository.items(this.db, merchantId, batchId, afterIndex, STATUS_PAGE_SIZE + 1);
    const hasMore = page.length > STATUS_PAGE_SIZE;
    const items = hasMore ? page.slice(0, STATUS_PAGE_SIZE) : page;
    const last = items[items.length - 1];
    return {
      batch_id: batch.batchId,
      atomic: batch.atomic,
      created_at: batch.createdAt.toISOString(),
      completed_at: batch.completedAt?.toISOString() ?? null,
      summary: {
        items: batch.itemCount,
        accepted: batch.accepted,
        refused: batch.itemCount - batch.accepted,
        amount_accepted: formatPaise(batch.amountAccepted),
        by_status: await batchStatusCounts(this.db, merchantId, batchId),
      },
      items: items.map((i) => ({
        index: i.index,
        sender_id: i.senderId,
        resp_code: i.code,
        resp_message: i.message,
        ...(i.payoutId
          ? {
              transaction_id: i.payoutId,
              status: i.status ?? undefined,
              status_message: i.statusMessage ?? '',
              utr_number: i.utr ?? '',
            }
          : {}),
      })),
      has_more: hasMore,
      next_cursor: hasMore && last ? Buffer.from(String(last.index)).toString('base64url') : null,
    };
  }

  /** Admin and the merchant console: a page of batches, newest first (only the merchant's, with `scope`). */
  page(query: Parameters<typeof BatchRepository.page>[1], scope?: MerchantScope): Promise<PayoutBatch[]> {
    return BatchRepository.page(this.db, scopedQuery(query, scope));
  }

  /**
   * Admin and the merchant console: one batch with every item. A batch id names a batch only within one merchant,
   * so the scope is always given: the operator's is the merchant in the path.
   */
  async get(batchId: string, scope: MerchantScope) {
    const { merchantId } = scope;
    const batch = await BatchRepository.find(this.db, merchantId, batchId);
    if (!batch) return null;
    const items = await BatchRepository.items(this.db, merchantId, batchId, -1, MAX_BATCH_ITEMS);
    return { batch, items, byStatus: await batchStatusCounts(this.db, merchantId, batchId) };
  }

  private async walletsOf(items: unknown[]): Promise<Map<string, Wallet>> {
    const ids = new Set<string>();
    for (const item of items) {
      const id = (item as { wallet_id?: unknown } | null)?.wallet_id;
      if (typeof id === 'string' && /^WL[0-9A-HJKMNP-TV-Z]{26}$/.test(id)) ids.add(id);
    }
    const wallets = await WalletRepository.findByIds(this.db, [...ids]);
    return new Map(wallets.map((w) => [w.id, w]));
  }

  /** The webhook policy's check, once per distinct URL of a batch. */
  private callbackChecker() {
    const seen = new Map<string, Promise<string | null>>();
    return (url: string) => {
      let answer = seen.get(url);
      if (!answer) {
        answer = this.callbackPolicy.check(url);
        seen.set(url, answer);
      }
      return answer;
    };
  }
}

/** Reads the opaque cursor of GET /payout/v1/bulk/status: the index of the last item of the previous page. */
export function decodeItemCursor(cursor: string | undefined): number | null {
  if (cursor === undefined || cursor === '') return -1;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  return /^\d{1,4}$/.test(text) ? Number(text) : null;
}
