import type { PayoutStatus } from '@payrail/protocol';
import type { Core, Outcome } from './core.ts';
import {
  BatchRejectedError,
  ConflictError,
  ServerError,
  ValidationError,
  type Operation,
  type PayrailError,
} from './errors.ts';
import {
  bulkRequestWire,
  payoutMatches,
  payoutRequestWire,
  ShapeError,
  toBulkResult,
  toBulkStatus,
  toPayout,
} from './mapping.ts';
import type {
  BulkOptions,
  BulkPayoutInput,
  BulkResult,
  BulkStatus,
  BulkStatusOptions,
  CallOptions,
  InitiateOptions,
  Payout,
  PayoutInitiateInput,
  PayoutLookup,
  PayoutWaitOptions,
} from './types.ts';
import { waitUntil } from './wait.ts';

/** Statuses after which nothing changes any more: the money has settled. */
export const FINAL_PAYOUT_STATUSES: readonly PayoutStatus[] = ['SUCCESS', 'REFUNDED'];
/** Statuses that tell the outcome: SUCCESS, or FAILED (on its way to REFUNDED), or REFUNDED. */
export const OUTCOME_PAYOUT_STATUSES: readonly PayoutStatus[] = ['SUCCESS', 'FAILED', 'REFUNDED'];

/** The statuses a wait for `until` ends at (default `'final'`); payouts and settlements (their payout's) alike. */
export function waitTargets(until: PayoutWaitOptions['until'] = 'final'): readonly PayoutStatus[] {
  if (until === 'final') return FINAL_PAYOUT_STATUSES;
  if (until === 'outcome') return OUTCOME_PAYOUT_STATUSES;
  return typeof until === 'string' ? [until as PayoutStatus] : (until as readonly PayoutStatus[]);
}

export const isFinalPayoutStatus = (status: PayoutStatus): boolean => FINAL_PAYOUT_STATUSES.includes(status);

/** Reads a decrypted transaction; an unreadable one is the server's fault, reported as such. */
export function readData<T>(
  outcome: { data: Record<string, unknown> | undefined; status?: number },
  operation: Operation,
  map: (data: Record<string, unknown>) => T,
): T {
  try {
    if (!outcome.data) throw new ShapeError('the answer holds no data');
    return map(outcome.data);
  } catch (err) {
    if (!(err instanceof ShapeError)) throw err;
    throw new ServerError({ code: 'BAD_RESPONSE', message: `Unreadable answer: ${err.message}`, operation });
  }
}

export function lookupQuery(
  lookup: Record<string, unknown> | undefined,
  names: [sdk: string, wire: string][],
  operation: Operation,
): Record<string, string> {
  const given = names.filter(([sdk]) => lookup?.[sdk] !== undefined && lookup[sdk] !== '');
  if (given.length !== 1) {
    throw new ValidationError({
      code: 'INVALID_LOOKUP',
      message: `Give exactly one of ${names.map(([sdk]) => sdk).join(' and ')}`,
      operation,
    });
  }
  const [sdk, wire] = given[0] as [string, string];
  return { [wire]: String(lookup?.[sdk]) };
}

export class Payouts {
  constructor(private readonly core: Core) {}

  /**
   * Sends money from a wallet to a bank account. Resolves with the payout (status INITIATED). Network failures
   * and server errors are retried with the same senderId, so a payout is created at most once: when a retry finds
   * that the lost attempt did create it (4009), the existing payout is returned.
   */
  async initiate(input: PayoutInitiateInput, options: InitiateOptions = {}): Promise<Payout> {
    const operation = 'payouts.initiate';
    const outcome = await this.core.request({
      operation,
      family: 'payout',
      method: 'POST',
      path: '/payout/v1/initiate',
      encrypted: payoutRequestWire(input),
      auth: true,
      retry: 'initiate',
      signal: options.signal,
    });
    if (outcome.ok) return readData(outcome, operation, toPayout);
    const settled = await this.duplicateOrError(outcome, input, options);
    if (settled instanceof Error) throw settled;
    return settled;
  }

  private async duplicateOrError(
    outcome: Extract<Outcome, { ok: false }>,
    input: PayoutInitiateInput,
    options: InitiateOptions,
  ): Promise<PayrailError | Payout> {
    const error = outcome.error;
    if (!(error instanceof ConflictError)) return error;
    const existing = outcome.data
      ? readData(outcome, 'payouts.initiate', toPayout)
      : await this.get({ senderId: input.senderId }, options).catch(() => undefined);
    const matches = existing ? payoutMatches(existing, input) : undefined;
    // A lost answer whose request did land, or a batch being resumed: this is the payout asked for.
    if (existing && matches && (outcome.ambiguous || options.onDuplicate === 'return')) return existing;
    return new ConflictError<Payout>({
      code: error.code,
      message: duplicateMessage(error.message, input.senderId, existing, matches),
      operation: error.operation,
      httpStatus: error.httpStatus,
      requestId: error.requestId,
      existing,
      matchesRequest: matches,
    });
  }

  /** The payout with this transactionId or senderId (exactly one). */
  async get(lookup: PayoutLookup, options: CallOptions = {}): Promise<Payout> {
    const operation = 'payouts.get';
    const query = lookupQuery(
      lookup,
      [
        ['transactionId', 'transaction_id'],
        ['senderId', 'sender_id'],
      ],
      operation,
    );
    const outcome = await this.core.request({
      operation,
      family: 'payout',
      method: 'GET',
      path: '/payout/v1/status',
      query,
      auth: true,
      retry: 'read',
      budget: 'payout-status',
      signal: options.signal,
    });
    if (!outcome.ok) throw outcome.error;
    return readData(outcome, operation, toPayout);
  }

  /**
   * Polls the payout until it reaches `until` (default `'final'`: SUCCESS or REFUNDED), within the client's
   * status budget and the server's rate limit. Rejects with `WaitTimeoutError` after `timeoutMs`.
   */
  async waitFor(lookup: PayoutLookup, options: PayoutWaitOptions = {}): Promise<Payout> {
    const targets = waitTargets(options.until);
    return waitUntil({
      operation: 'payouts.waitFor',
      read: (signal) => this.get(lookup, { signal }),
      done: (p) => targets.includes(p.status),
      options,
      describe: (p) => `payout ${p.transactionId} is ${p.status}`,
    });
  }

  /**
   * Sends up to 1,000 payouts in one request (docs/merchant/bulk-and-verification.md). Resolves with every item's verdict, in order:
   * refused items do not stop the others (unless `atomic`). Retried like `initiate`: the batchId makes a repeat
   * safe, and a repeat of a batch that did land returns that batch.
   * Throws `BatchRejectedError` (4018, with `result`) for a refused atomic batch, `ConflictError` (4009, with
   * `existing`) for a batchId used before, `ValidationError` for 0 or over 1,000 items (4019) or a bad field.
   */
  async bulk(input: BulkPayoutInput, options: BulkOptions = {}): Promise<BulkResult> {
    const operation = 'payouts.bulk';
    const outcome = await this.core.request({
      operation,
      family: 'payout',
      method: 'POST',
      path: '/payout/v1/bulk',
      encrypted: bulkRequestWire(input),
      auth: true,
      retry: 'initiate',
      signal: options.signal,
    });
    if (outcome.ok) return readData(outcome, operation, toBulkResult);
    const { error } = outcome;
    const result = outcome.data ? readData(outcome, operation, toBulkResult) : undefined;
    if (error instanceof BatchRejectedError) {
      throw new BatchRejectedError<BulkResult>({ ...errorOptions(error), result });
    }
    if (error instanceof ConflictError) {
      if (result && (outcome.ambiguous || options.onDuplicate === 'return')) return result;
      throw new ConflictError<BulkResult>({
        ...errorOptions(error),
        message:
          `${error.message}: batchId ${input.batchId} was sent before (\`existing\` holds its verdicts); ` +
          `pass { onDuplicate: 'return' } to get that batch back instead of this error`,
        existing: result,
      });
    }
    throw error;
  }

  /** A batch's summary by status and one page of its items (`cursor`: the `nextCursor` of the previous page). */
  async bulkStatus(batchId: string, options: BulkStatusOptions = {}): Promise<BulkStatus> {
    const operation = 'payouts.bulkStatus';
    const outcome = await this.core.request({
      operation,
      family: 'payout',
      method: 'GET',
      path: '/payout/v1/bulk/status',
      query: { batch_id: batchId, ...(options.cursor ? { cursor: options.cursor } : {}) },
      auth: true,
      retry: 'read',
      budget: 'payout-status',
      signal: options.signal,
    });
    if (!outcome.ok) throw outcome.error;
    return readData(outcome, operation, toBulkStatus);
  }
}

/**
 * The 4009 message says what to do: the server's "Duplicate client reference" alone does not tell a rerun of the
 * same payout (fetch it, or pass onDuplicate: 'return') from a reference reused for a different one.
 */
function duplicateMessage(
  server: string,
  senderId: string,
  existing: Payout | undefined,
  matches: boolean | undefined,
): string {
  if (!existing) {
    return (
      `${server}: senderId ${senderId} is already used; with { onDuplicate: 'return' } initiate returns the ` +
      `existing payout when it matches this request`
    );
  }
  const held = `senderId ${senderId} already holds payout ${existing.transactionId} (${existing.status})`;
  return matches
    ? `${server}: ${held} with these same details; pass { onDuplicate: 'return' } to get it back instead of this error`
    : `${server}: ${held} with different details (wallet, mode, amount or beneficiary); { onDuplicate: 'return' } ` +
        `returns only a payout that matches the request, so use a new senderId for a new payout`;
}

const errorOptions = (e: PayrailError) => ({
  code: e.code,
  message: e.message,
  operation: e.operation,
  httpStatus: e.httpStatus,
  requestId: e.requestId,
});
