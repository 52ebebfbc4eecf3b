import type { Core } from './core.ts';
import { ValidationError, type Operation } from './errors.ts';
import { toSettlement, toSettlementHistory } from './mapping.ts';
import { readData, waitTargets } from './payouts.ts';
import type {
  CallOptions,
  Settlement,
  SettlementHistoryQuery,
  SettlementInitiateInput,
  SettlementWaitOptions,
} from './types.ts';
import { waitUntil } from './wait.ts';

/** A required text argument, refused before any request with the code the server would answer. */
function requireText(value: unknown, name: string, code: number, operation: Operation): string {
  if (typeof value !== 'string' || value === '') {
    throw new ValidationError({ code, message: `${name} is required`, operation });
  }
  return value;
}

/**
 * Your collections, net of their fees, paid to your settlement account (docs/merchant/settlements.md). A settlement
 * is paid by an ordinary payout, so its status is that payout's: INITIATED, PROCESSING, PENDING, then SUCCESS, or
 * FAILED and REFUNDED (the money back in the wallet, the collections settleable again).
 */
export class Settlements {
  constructor(private readonly core: Core) {}

  /**
   * Settles a wallet's collections now: everything settleable (credited collections not yet settled, net of their
   * fees, within the available balance minus the reserve), or exactly `amount`. Resolves with the settlement (status
   * INITIATED) and the collections it covers. Throws `NoSettlementAccountError` (4016) without an active settlement
   * account, `NothingToSettleError` (4002) when nothing (or less than `amount`) can be settled, `NotFoundError`
   * (4202) for a wallet that is not yours.
   *
   * Never retried: a settlement has no reference of your own that would make a repeat safe. After a `NetworkError`
   * or a `ServerError` the settlement may exist: look at `history()` before asking again.
   */
  async initiate(input: SettlementInitiateInput, options: CallOptions = {}): Promise<Settlement> {
    const operation = 'settlements.initiate';
    const walletId = requireText(input?.walletId, 'walletId', 4201, operation);
    const plain: Record<string, unknown> = { wallet_id: walletId };
    if (input.amount !== undefined) plain.amount = input.amount;
    const outcome = await this.core.request({
      operation,
      family: 'settlement',
      method: 'POST',
      path: '/settlement/v1/initiate',
      encrypted: plain,
      auth: true,
      retry: 'none',
      signal: options.signal,
    });
    if (!outcome.ok) throw outcome.error;
    return readData(outcome, operation, toSettlement);
  }

  /**
   * One of your settlements, with the collections it covers. `NotFoundError` with code 4103 when it does not exist,
   * 4107 when it is another merchant's.
   */
  async status(settlementId: string, options: CallOptions = {}): Promise<Settlement> {
    const operation = 'settlements.status';
    const id = requireText(settlementId, 'settlementId', 4101, operation);
    const outcome = await this.core.request({
      operation,
      family: 'settlement',
      method: 'GET',
      path: '/settlement/v1/status',
      query: { settlement_id: id },
      auth: true,
      retry: 'read',
      budget: 'settlement-status',
      signal: options.signal,
    });
    if (!outcome.ok) throw outcome.error;
    return readData(outcome, operation, toSettlement);
  }

  /** Polls the settlement until it reaches `until` (default `'final'`: SUCCESS or REFUNDED). */
  async waitFor(settlementId: string, options: SettlementWaitOptions = {}): Promise<Settlement> {
    const targets = waitTargets(options.until);
    return waitUntil({
      operation: 'settlements.waitFor',
      read: (signal) => this.status(settlementId, { signal }),
      done: (s) => targets.includes(s.status),
      options,
      describe: (s) => `settlement ${s.settlementId} is ${s.status}`,
    });
  }

  /**
   * Your settlements created from `from` to `to` (IST calendar dates `YYYY-MM-DD`, both inclusive; default the last
   * 30 days; at most 92 days), newest first, at most 1,000, each with the collections it covers. A bad date or range
   * is a `ValidationError` (4017).
   */
  async history(query: SettlementHistoryQuery = {}, options: CallOptions = {}): Promise<Settlement[]> {
    const operation = 'settlements.history';
    const params: Record<string, string> = {};
    if (query.from !== undefined && query.from !== '') params.from = query.from;
    if (query.to !== undefined && query.to !== '') params.to = query.to;
    const outcome = await this.core.request({
      operation,
      family: 'settlement',
      method: 'GET',
      path: '/settlement/v1/history',
      query: params,
      auth: true,
      retry: 'read',
      signal: options.signal,
    });
    if (!outcome.ok) throw outcome.error;
    return readData(outcome, operation, toSettlementHistory);
  }
}
