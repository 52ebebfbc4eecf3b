import { formatPaise, RECON_RESULT_NAMES } from '@payrail/protocol';
import { ulidFactory } from './ulidFactory.ts';

/**
 * Reconciliation of bank statements against what Payrail knows: a statement's own arithmetic first, then each of
 * its transactions matched to a payout, a return, a collection or a wallet credit. Pure: the service looks up
 * the candidates and stores the results.
 */

const ulid = ulidFactory();

/** Identifiers of imported statements (`BS…`) and their reconciliation runs (`RR…`): prefix + ULID. */
export function newReconId(prefix: 'BS' | 'RR', now: number): string {
  return prefix + ulid(now);
}

export const RUN_ID_PATTERN = /^RR[0-9A-HJKMNP-TV-Z]{26}$/;

/** The results of matching (protocol's list): all but matched are exceptions. */
export type ReconResult = (typeof RECON_RESULT_NAMES)[number];
export const RECON_RESULTS: readonly ReconResult[] = RECON_RESULT_NAMES;
/** The results an operator looks into and closes: everything but matched. */
export const isException = (result: ReconResult) => result !== 'matched';

export type MatchedKind = 'payout' | 'return' | 'collection' | 'wallet_credit' | 'deposit';

// The statement's arithmetic

export interface BalanceLike {
  type: string;
  /** Signed minor units. */
  amount: bigint;
  date: string | null;
}

export interface EntryLike {
  index: number;
  direction: 'credit' | 'debit';
  amount: bigint;
  status: string;
  valueDate: string | null;
}

export interface Arithmetic {
  opening: BalanceLike;
  closing: BalanceLike;
  /** Booked credits and debits, unsigned. */
  credits: bigint;
  debits: bigint;
  /** Booked entries value-dated after the closing balance's date that the closing balance leaves out. */
  forwardEntries: number[];
  /** Their signed sum: opening + credits − debits − forwardAmount = closing. */
  forwardAmount: bigint;
}

/** A statement whose balances do not add up, or that gives none to check (HTTP 422; nothing is recorded). */
export class StatementUnbalanced extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatementUnbalanced';
  }
}

const first = (balances: BalanceLike[], type: string) => balances.find((b) => b.type === type);

/**
 * Checks opening + booked credits − booked debits = closing, on booked balances: opening OPBD, else PRCD (OPAV
 * only when the statement gives no booked opening balance); closing CLBD, else CLAV. A difference that exactly
 * equals the booked entries value-dated after the closing balance's date (else the period's end) is accepted, and
 * those entries are named; any other difference throws StatementUnbalanced naming it.
 */
export function checkArithmetic(s: {
  balances: BalanceLike[];
  entries: EntryLike[];
  periodTo: string | null;
}): Arithmetic {
  const opening = first(s.balances, 'OPBD') ?? first(s.balances, 'PRCD') ?? first(s.balances, 'OPAV');
  const closing = first(s.balances, 'CLBD') ?? first(s.balances, 'CLAV');
  if (!opening) {
    throw new StatementUnbalanced(
      'the statement gives no opening balance (OPBD, PRCD or OPAV; MT940 :60F:), so its arithmetic cannot be checked',
    );
  }
  if (!closing) {
    throw new StatementUnbalanced(
      'the statement gives no closing balance (CLBD or CLAV; MT940 :62F:), so its arithmetic cannot be checked',
    );
  }
  const booked = s.entries.filter((e) => e.status === 'BOOK');
  let credits = 0n;
  let debits = 0n;
  for (const e of booked) {
    if (e.direction === 'credit') credits += e.amount;
    else debits += e.amount;
  }
  const computed = opening.amount + credits - debits;
  const base = { opening, closing, credits, debits };
  if (computed === closing.amount) return { ...base, forwardEntries: [], forwardAmount: 0n };
  const cutoff = closing.date ?? s.periodTo;
  const forward = cutoff ? booked.filter((e) => e.valueDate !== null && e.valueDate > cutoff) : [];
  const forwardAmount = forward.reduce((sum, e) => sum + (e.direction === 'credit' ? e.amount : -e.amount), 0n);
  if (forward.length > 0 && computed - forwardAmount === closing.amount) {
    return { ...base, forwardEntries: forward.map((e) => e.index), forwardAmount };
  }
  const difference = closing.amount - computed;
  const explained =
    forward.length > 0
      ? `; the entries value-dated after ${cutoff} come to ${formatPaise(forwardAmount)}, which does not explain it`
      : '';
  throw new StatementUnbalanced(
    `opening ${formatPaise(opening.amount)} + credits ${formatPaise(credits)} − debits ${formatPaise(debits)} = ` +
      `${formatPaise(computed)}, closing says ${formatPaise(closing.amount)} (difference ${formatPaise(difference)})` +
      explained,
  );
}

// Matching

/** One transaction of a statement, as matching sees it (a TxDtls, or an entry without details). */
export interface ReconTransaction {
  direction: 'credit' | 'debit';
  /** Unsigned minor units; null when the bank does not give this transaction's amount. */
  amount: bigint | null;
  currency: string | null;
  endToEndId: string | null;
  utrs: string[];
  references: string[];
  isReturn: boolean;
  /** The virtual account a credit names (domain/bankCredit.ts), when it names one: then it is a deposit's. */
  virtualAccount?: string | null;
}

export interface KnownPayout {
  id: string;
  amount: bigint;
  status: string;
  utr: string;
  /** Returned by the bank after it succeeded (REFUNDED, but the bank did pay it first). */
  returned: boolean;
}

export interface KnownCollection {
  id: string;
  amount: bigint;
  status: string;
  utr: string;
}

export interface KnownCredit {
  /** The ledger entry's id. */
  id: bigint;
  walletId: string;
  amount: bigint;
  reference: string;
}

/** A deposit credited to a wallet (migration 032), found by its UTR. */
export interface KnownDeposit {
  id: string;
  walletId: string;
  amount: bigint;
  utr: string;
}

/** What Payrail knows of the references a statement gives (the service looks them up in one go). */
export interface Known {
  payoutsById: Map<string, KnownPayout>;
  payoutsByUtr: Map<string, KnownPayout[]>;
  collectionsByUtr: Map<string, KnownCollection[]>;
  creditsByReference: Map<string, KnownCredit[]>;
  /** Absent: no deposit is looked up (nothing matches one). */
  depositsByUtr?: Map<string, KnownDeposit[]>;
}

export interface Match {
  result: ReconResult;
  kind: MatchedKind | null;
  payoutId: string | null;
  collectionId: string | null;
  creditId: bigint | null;
  depositId: string | null;
  walletId: string | null;
  /** Payrail's amount of the item found. */
  payrailAmount: bigint | null;
  note: string | null;
}

/** Payout ids as Payrail issues them: the only end-to-end ids worth looking up. */
export const PAYOUT_ID = /^PT[0-9A-HJKMNP-TV-Z]{26}$/;

/** The references to look up for a statement's transactions, by what they may name. */
export function lookupKeys(txs: ReconTransaction[]) {
  const payoutIds = new Set<string>();
  const payoutUtrs = new Set<string>();
  const collectionUtrs = new Set<string>();
  const creditReferences = new Set<string>();
  for (const tx of txs) {
    if (tx.endToEndId && PAYOUT_ID.test(tx.endToEndId)) payoutIds.add(tx.endToEndId);
    for (const utr of tx.utrs) (tx.direction === 'debit' ? payoutUtrs : collectionUtrs).add(utr);
    if (tx.direction === 'credit') for (const ref of creditCandidates(tx)) creditReferences.add(ref);
  }
  return {
    payoutIds: [...payoutIds],
    payoutUtrs: [...payoutUtrs],
    collectionUtrs: [...collectionUtrs],
    creditReferences: [...creditReferences],
  };
}

/** A wallet credit's reference may be any reference the bank gives for the credit. */
const creditCandidates = (tx: ReconTransaction) =>
  [tx.endToEndId, ...tx.utrs, ...tx.references].filter((r): r is string => Boolean(r) && r!.length <= 200);

const PAYRAIL_CURRENCY = 'INR';
const STOPPED = new Set(['FAILED', 'REFUNDED']);

const none: Omit<Match, 'result' | 'note'> = {
  kind: null,
  payoutId: null,
  collectionId: null,
  creditId: null,
  depositId: null,
  walletId: null,
  payrailAmount: null,
};

/**
 * Matches the transactions of one statement, in order. Each Payrail item is matched once per statement: a
 * second transaction naming it is unmatched (money moved twice). Rules:
 *   - a debit: the payout whose id is the EndToEndId, else whose UTR is one the bank gives;
 *   - a credit: with return information, the payout whose id is the EndToEndId (a return); else the SUCCESS
 *     collection with that UTR; else the deposit credited with that UTR; else the wallet credit whose reference is
 *     one the bank gives; a credit naming a virtual account that no deposit credited is unmatched, saying so;
 *   - the same item with another amount is amount_mismatch; a payout that failed in Payrail but the bank paid is
 *     paid_but_refunded; a return of a payout Payrail has as SUCCESS is return_not_applied; a return of a payout
 *     still open is unmatched, naming it;
 *   - anything else is unmatched: money moved that Payrail does not know of.
 */
export class Matcher {
  private readonly used = new Set<string>();

  constructor(private readonly known: Known) {}

  match(tx: ReconTransaction): Match {
    if (tx.currency !== null && tx.currency !== PAYRAIL_CURRENCY) {
      return { ...none, result: 'unmatched', note: `in ${tx.currency}, not ${PAYRAIL_CURRENCY}` };
    }
    return tx.direction === 'debit' ? this.debit(tx) : this.credit(tx);
  }

  /** SUCCESS payouts (paid through the bank file, value-dated in the period) that no debit of the statement matched. */
  missing(successful: KnownPayout[]): KnownPayout[] {
    return successful.filter((p) => !this.used.has(`payout:${p.id}`));
  }

  private debit(tx: ReconTransaction): Match {
    const byId = tx.endToEndId ? this.known.payoutsById.get(tx.endToEndId) : undefined;
    const candidates = byId ? [byId] : tx.utrs.flatMap((utr) => this.known.payoutsByUtr.get(utr) ?? []);
    const payout = this.pick('payout', candidates, tx.amount);
    if (!payout) return { ...none, result: 'unmatched', note: null };
    const found = { ...none, kind: 'payout' as const, payoutId: payout.id, payrailAmount: payout.amount };
    if (this.used.has(`payout:${payout.id}`)) {
      return { ...found, result: 'unmatched', note: `payout ${payout.id} is already matched by another entry` };
    }
    this.used.add(`payout:${payout.id}`);
    if (STOPPED.has(payout.status) && !payout.returned) {
      // A contradiction, never matched: the bank paid a payout whose money Payrail gave back to the merchant.
      return {
        ...found,
        result: 'paid_but_refunded',
        note: `payout ${payout.id} is ${payout.status} in Payrail (failed, never SUCCESS), yet the bank paid it`,
      };
    }
    const state = payout.status === 'SUCCESS' ? null : `payout is ${payout.status} in Payrail`;
    return this.compare(found, tx.amount, payout.amount, state);
  }

  private credit(tx: ReconTransaction): Match {
    if (tx.isReturn && tx.endToEndId) {
      const payout = this.known.payoutsById.get(tx.endToEndId);
      if (payout) {
        const found = { ...none, kind: 'return' as const, payoutId: payout.id, payrailAmount: payout.amount };
        if (this.used.has(`return:${payout.id}`)) {
          return { ...found, result: 'unmatched', note: `the return of payout ${payout.id} is already matched` };
        }
        this.used.add(`return:${payout.id}`);
        if (payout.status === 'SUCCESS') {
          // The bank sent the money back, and Payrail has not booked the return: the wallet is owed it.
          return {
            ...found,
            result: 'return_not_applied',
            note: `a return of payout ${payout.id}, which is still SUCCESS in Payrail`,
          };
        }
        if (!STOPPED.has(payout.status)) {
          return {
            ...found,
            result: 'unmatched',
            note: `a return of payout ${payout.id}, which is ${payout.status} in Payrail`,
          };
        }
        return this.compare(found, tx.amount, payout.amount, null);
      }
    }
    const collections = tx.utrs.flatMap((utr) => this.known.collectionsByUtr.get(utr) ?? []);
    const collection = this.pick('collection', collections, tx.amount);
    if (collection) {
      const found = {
        ...none,
        kind: 'collection' as const,
        collectionId: collection.id,
        payrailAmount: collection.amount,
      };
      if (this.used.has(`collection:${collection.id}`)) {
        return {
          ...found,
          result: 'unmatched',
          note: `collection ${collection.id} is already matched by another entry`,
        };
      }
      this.used.add(`collection:${collection.id}`);
      if (collection.status !== 'SUCCESS') {
        return {
          ...found,
          result: 'unmatched',
          note: `collection ${collection.id} is ${collection.status} in Payrail, yet the bank credited it`,
        };
      }
      return this.compare(found, tx.amount, collection.amount, null);
    }
    const deposits = tx.utrs.flatMap((utr) => this.known.depositsByUtr?.get(utr) ?? []);
    const deposit = this.pick('deposit', deposits, tx.amount);
    if (deposit) {
      const found = {
        ...none,
        kind: 'deposit' as const,
        depositId: deposit.id,
        walletId: deposit.walletId,
        payrailAmount: deposit.amount,
      };
      if (this.used.has(`deposit:${deposit.id}`)) {
        return { ...found, result: 'unmatched', note: `deposit ${deposit.id} is already matched by another entry` };
      }
      this.used.add(`deposit:${deposit.id}`);
      return this.compare(found, tx.amount, deposit.amount, null);
    }
    const credits = creditCandidates(tx).flatMap((ref) => this.known.creditsByReference.get(ref) ?? []);
    const credit = this.pick('credit', credits, tx.amount, (c) => String(c.id));
    if (credit) {
      const found = {
        ...none,
        kind: 'wallet_credit' as const,
        creditId: credit.id,
        walletId: credit.walletId,
        payrailAmount: credit.amount,
      };
      if (this.used.has(`credit:${credit.id}`)) {
        return {
          ...found,
          result: 'unmatched',
          note: `wallet credit ${credit.id} is already matched by another entry`,
        };
      }
      this.used.add(`credit:${credit.id}`);
      return this.compare(found, tx.amount, credit.amount, null);
    }
    if (tx.virtualAccount) {
      return {
        ...none,
        result: 'unmatched',
        note: `a credit to virtual account ${tx.virtualAccount} that no deposit credited (UTR ${tx.utrs[0] ?? 'not given'})`,
      };
    }
    return { ...none, result: 'unmatched', note: null };
  }

  /** Of several candidates: the first not yet matched with the same amount, else the first not yet matched, else the first. */
  private pick<T extends { amount: bigint }>(
    kind: string,
    candidates: T[],
    amount: bigint | null,
    idOf: (c: T) => string = (c) => (c as unknown as { id: string }).id,
  ): T | undefined {
    const free = candidates.filter((c) => !this.used.has(`${kind}:${idOf(c)}`));
    return free.find((c) => c.amount === amount) ?? free[0] ?? candidates[0];
  }

  private compare(
    found: Omit<Match, 'result' | 'note'>,
    bank: bigint | null,
    payrail: bigint,
    note: string | null,
  ): Match {
    if (bank === null) {
      return { ...found, result: 'amount_mismatch', note: 'the bank gives no amount for this transaction' };
    }
    if (bank !== payrail) {
      return {
        ...found,
        result: 'amount_mismatch',
        note: `Payrail's amount is ${formatPaise(payrail)}, the bank's ${formatPaise(bank)}`,
      };
    }
    return { ...found, result: 'matched', note };
  }
}
