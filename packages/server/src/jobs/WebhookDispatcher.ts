import {
  BODY_SIGNATURE_HEADER,
  encryptJson,
  PROVIDER_SIGNATURE_HEADER,
  signBody,
  signWebhook,
  type WebhookEventWire,
} from '@payrail/protocol';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { callbackUrlProblem } from '../domain/callbackUrl.ts';
import { webhookSigningSecrets } from '../domain/webhookSigningSecrets.ts';
import type { Merchant } from '../domain/Merchant.ts';
import type { Metrics } from '../observability/Metrics.ts';
import type { CallbackPolicy } from '../services/CallbackPolicy.ts';
import { SERVER_VERSION } from '../serverVersion.ts';
import type { Database } from '../store/Database.ts';
import { MerchantRepository } from '../store/repositories/MerchantRepository.ts';
import {
  WebhookRepository,
  type DeliveryState,
  type WebhookAttempt,
  type WebhookDelivery,
} from '../store/repositories/WebhookRepository.ts';
import { DatabaseUnavailable } from '../domain/DatabaseUnavailable.ts';
import { GroupCommit, type ItemOutcome } from '../services/GroupCommit.ts';
import { postWebhook } from './postWebhook.ts';

export interface DispatcherOptions {
  retryScheduleMs: number[];
  timeoutMs: number;
  /** The deployment's external base URL (PAYRAIL_PUBLIC_URL), named in the User-Agent so receivers know the sender. */
  publicUrl?: () => string;
  /** The composition root's clock (attempt times, signature timestamps). */
  clock: Clock;
}

/** One attempt to record: the claim it was made under, what happened, and the delivery's next state. */
interface AttemptRecord {
  claimed: Pick<WebhookDelivery, 'id' | 'leaseOwner'>;
  attempt: WebhookAttempt;
  next: { state: DeliveryState; retryInMs: number | null };
}

/** `Payrail-Webhook/<version>`, then the sending deployment as a comment: `Payrail-Webhook/0.1.0 (+https://host)`. */
export function webhookUserAgent(publicUrl?: string): string {
  const base = `Payrail-Webhook/${SERVER_VERSION}`;
  return publicUrl ? `${base} (+${publicUrl.replace(/\/+$/, '')})` : base;
}

/**
 * Sends one claimed delivery per Standard Webhooks and records the attempt: 2xx within the timeout is
 * delivered; anything else (a 3xx included: redirects are not followed) is retried on the schedule until it
 * runs out, then the delivery is failed. `data` is encrypted at send time with the merchant's current keys and
 * the transaction's scheme, and the body is signed at send time with the secrets valid then (both during a
 * rotation). The connection goes only to addresses the callback policy checked (see `CallbackPolicy`).
 *
 * Deliveries claimed together (`deliverMany`) read their merchants in one statement and are sent each on its own;
 * their attempts are recorded together (group commit: the attempts that end while a record is being written go
 * in the next one), each still only under the lease it was claimed with.
 */
export class WebhookDispatcher {
  private readonly clock: Clock;
  private readonly recorder: GroupCommit<AttemptRecord, boolean>;

  constructor(
    private readonly db: Database,
    private readonly policy: CallbackPolicy,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions,
    /** Opens the merchant's sealed keys and webhook secrets (the server passes the one built on its master key). */
    private readonly merchants = new MerchantRepository(),
  ) {
    this.clock = options.clock;
    this.recorder = new GroupCommit((items) => this.recordAll(items));
  }

  /** Sends one claimed delivery and records the attempt. */
  deliver(delivery: WebhookDelivery): Promise<void> {
    return this.deliverMany([delivery])[0] as Promise<void>;
  }

  /**
   * Sends deliveries claimed together, each on its own, with their merchants read in one statement; one promise per
   * delivery, in order, settled once its attempt is recorded (or found to be someone else's).
   */
  deliverMany(deliveries: readonly WebhookDelivery[]): Promise<void>[] {
    if (deliveries.length === 0) return [];
    const merchants = this.merchants.findByIds(
      this.db,
      deliveries.map((d) => d.merchantId),
    );
    return deliveries.map((d) =>
      this.attempt(
        d,
        merchants.then((m) => m.get(d.merchantId) ?? null),
      ),
    );
  }

  private async attempt(delivery: WebhookDelivery, merchant: Promise<Merchant | null>): Promise<void> {
    const started = performance.now();
    const attempt: WebhookAttempt = {
      attemptedAt: new Date(this.clock()),
      durationMs: 0,
      httpStatus: null,
      error: null,
    };
    try {
      attempt.httpStatus = await this.send(delivery, await merchant);
      if (attempt.httpStatus < 200 || attempt.httpStatus > 299) attempt.error = `HTTP ${attempt.httpStatus}`;
    } catch (err) {
      attempt.error = describe(err, this.options.timeoutMs);
    }
    attempt.durationMs = Math.round(performance.now() - started);
    const ok = attempt.error === null;
    const attemptsSoFar = delivery.attempts + 1;
    const retryInMs = ok ? null : (this.options.retryScheduleMs[attemptsSoFar - 1] ?? null);
    const state = ok ? 'delivered' : retryInMs === null ? 'failed' : 'pending';
    if (!(await this.recorder.submit({ claimed: delivery, attempt, next: { state, retryInMs } }))) {
      // Our lease expired and another claim (or an operator replay) owns the delivery now: its outcome wins.
      this.logger.warn(
        { delivery: delivery.id, status: attempt.httpStatus, error: attempt.error },
        'webhook attempt not recorded: lease lost',
      );
      return;
    }
    this.metrics.webhookAttempts.inc({ outcome: ok ? 'delivered' : state === 'failed' ? 'gave_up' : 'retry' });
    this.logger.info(
      { delivery: delivery.id, type: delivery.type, attempt: attemptsSoFar, status: attempt.httpStatus, state },
      ok ? 'webhook delivered' : 'webhook attempt failed',
    );
  }

  /**
   * Records attempts in one statement; if that fails for another reason than the database being away, each again
   * on its own, so that one bad row does not cost the others their record.
   */
  private async recordAll(items: AttemptRecord[]): Promise<ItemOutcome<boolean>[]> {
    try {
      const recorded = await WebhookRepository.recordAttempts(this.db, items);
      return recorded.map((value) => ({ ok: true, value }));
    } catch (err) {
      if (items.length === 1 || err instanceof DatabaseUnavailable) return items.map(() => ({ ok: false, error: err }));
    }
    const outcomes: ItemOutcome<boolean>[] = [];
    for (const item of items) {
      try {
        const [value] = await WebhookRepository.recordAttempts(this.db, [item]);
        outcomes.push({ ok: true, value: value === true });
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }

  private async send(delivery: WebhookDelivery, merchant: Merchant | null): Promise<number> {
    if (!merchant) throw new Error('merchant no longer exists');
    const problem = callbackUrlProblem(delivery.url);
    if (problem) throw new Error(`callback URL refused by policy: ${problem}`);
    const url = new URL(delivery.url);
    // One time limit for the whole attempt: DNS (which also has its own, shorter one), connect, answer.
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    const addresses = await abortable(this.policy.addressesFor(url.hostname), signal).catch((err: Error) => {
      throw err.name === 'EgressRefused' ? new Error(`callback URL refused by policy: ${err.message}`) : err;
    });
    const event: WebhookEventWire = {
      id: delivery.id,
      type: delivery.type,
      created_at: delivery.createdAt.toISOString(),
      data: encryptJson(JSON.parse(delivery.snapshot), delivery.scheme, merchant),
    };
    // Compact JSON: a receiver that re-serialises the parsed body gets these very bytes.
    const body = JSON.stringify(event);
    const now = new Date(this.clock());
    const secrets = webhookSigningSecrets(merchant, now);
    const bodySignature = signBody(secrets, body);
    const headers = {
      ...signWebhook(secrets, delivery.id, now, body),
      [BODY_SIGNATURE_HEADER]: bodySignature,
      // The provider's own name for it: integrations written against the provider read this one.
      [PROVIDER_SIGNATURE_HEADER]: bodySignature,
      'content-type': 'application/json',
      'user-agent': webhookUserAgent(this.options.publicUrl?.()),
    };
    const answer = await postWebhook(url, headers, body, { addresses, signal });
    return answer.status;
  }
}

/** Rejects with the signal's reason when it aborts first. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = e.cause?.code ?? e.cause?.message;
  return (cause ? `${e.message}: ${cause}` : (e.message ?? String(err))).slice(0, 500);
}
