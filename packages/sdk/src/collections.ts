import type { CollectionStatus } from '@payrail/protocol';
import type { Core } from './core.ts';
import { ConflictError } from './errors.ts';
import { sameAmount, toCollection } from './mapping.ts';
import { lookupQuery, readData } from './payouts.ts';
import type {
  CallOptions,
  Collection,
  CollectionInitiateInput,
  CollectionLookup,
  CollectionWaitOptions,
  InitiateOptions,
} from './types.ts';
import { waitUntil } from './wait.ts';

export const FINAL_COLLECTION_STATUSES: readonly CollectionStatus[] = ['SUCCESS', 'FAILED'];

/** The amount of a request, under either of its names. */
const amountOf = (input: CollectionInitiateInput) => String(input.requestAmount ?? input.amount);

function collectionMatches(c: Collection, input: CollectionInitiateInput): boolean {
  return (
    c.senderId === input.senderId &&
    sameAmount(c.amount, amountOf(input)) &&
    (input.walletId === undefined || c.walletId === null || c.walletId === input.walletId) &&
    (input.payerVpa === undefined || c.payerVpa === input.payerVpa)
  );
}

export class Collections {
  constructor(private readonly core: Core) {}

  /**
   * Creates a UPI payment request: resolves with the collection (status INITIATED), its `intentUrl` and its
   * `paymentUrl` (the hosted payment page). Retried
   * like a payout initiation: with the same senderId, so that at most one collection exists for it.
   */
  async initiate(input: CollectionInitiateInput, options: InitiateOptions = {}): Promise<Collection> {
    const operation = 'collections.initiate';
    // requestAmount is the interface's name; an amount given beside it is sent too, so the server checks both agree.
    const plain: Record<string, unknown> = {
      senderId: input.senderId,
      requestAmount: input.requestAmount ?? input.amount,
    };
    if (input.requestAmount !== undefined && input.amount !== undefined) plain.amount = input.amount;
    for (const key of ['remarks', 'walletId', 'callbackUrl', 'payerVpa', 'vpa', 'txnType', 'channel'] as const) {
      if (input[key] !== undefined) plain[key] = input[key];
    }
    const outcome = await this.core.request({
      operation,
      family: 'collection',
      method: 'POST',
      path: '/collection/v1/initiate',
      encrypted: plain,
      auth: true,
      retry: 'initiate',
      signal: options.signal,
    });
    if (outcome.ok) return readData(outcome, operation, toCollection);
    const error = outcome.error;
    if (!(error instanceof ConflictError)) throw error;
    const existing = outcome.data
      ? readData(outcome, operation, toCollection)
      : await this.get({ senderId: input.senderId }, options).catch(() => undefined);
    if (existing && collectionMatches(existing, input) && (outcome.ambiguous || options.onDuplicate === 'return')) {
      return existing;
    }
    throw new ConflictError<Collection>({
      code: error.code,
      message: error.message,
      operation,
      httpStatus: error.httpStatus,
      requestId: error.requestId,
      existing,
    });
  }

  /** The collection with this txnId or senderId (exactly one). */
  async get(lookup: CollectionLookup, options: CallOptions = {}): Promise<Collection> {
    const operation = 'collections.get';
    const query = lookupQuery(
      lookup,
      [
        ['txnId', 'txnId'],
        ['senderId', 'senderId'],
      ],
      operation,
    );
    const outcome = await this.core.request({
      operation,
      family: 'collection',
      method: 'GET',
      path: '/collection/v1/status',
      query,
      auth: true,
      retry: 'read',
      budget: 'collection-status',
      signal: options.signal,
    });
    if (!outcome.ok) throw outcome.error;
    return readData(outcome, operation, toCollection);
  }

  /** Polls until the collection reaches `until` (default `'final'`: SUCCESS or FAILED). */
  async waitFor(lookup: CollectionLookup, options: CollectionWaitOptions = {}): Promise<Collection> {
    const until = options.until ?? 'final';
    const targets: readonly CollectionStatus[] =
      until === 'final'
        ? FINAL_COLLECTION_STATUSES
        : typeof until === 'string'
          ? [until as CollectionStatus]
          : (until as readonly CollectionStatus[]);
    return waitUntil({
      operation: 'collections.waitFor',
      read: (signal) => this.get(lookup, { signal }),
      done: (c) => targets.includes(c.status),
      options,
      describe: (c) => `collection ${c.txnId} is ${c.status}`,
    });
  }
}

/** Sandbox-only helpers (the server answers 404 in live mode). */
export class Sandbox {
  constructor(
    private readonly core: Core,
    private readonly collections: Collections,
  ) {}

  /** Moves one of your sandbox collections to SUCCESS, FAILED or PENDING, as a payer or bank would. */
  async simulateCollection(
    txnId: string,
    outcome: 'SUCCESS' | 'FAILED' | 'PENDING',
    options: CallOptions & { utr?: string } = {},
  ): Promise<Collection> {
    const operation = 'sandbox.simulateCollection';
    const result = await this.core.request({
      operation,
      family: 'collection',
      method: 'POST',
      path: `/sandbox/v1/collections/${encodeURIComponent(txnId)}/simulate`,
      json: options.utr === undefined ? { outcome } : { outcome, utr: options.utr },
      auth: true,
      // Reporting the same outcome again changes nothing, so a lost answer may be asked for again.
      retry: 'initiate',
      signal: options.signal,
    });
    if (!result.ok) throw result.error;
    if (result.data) return readData(result, operation, toCollection);
    return this.collections.get({ txnId }, { signal: options.signal });
  }
}
