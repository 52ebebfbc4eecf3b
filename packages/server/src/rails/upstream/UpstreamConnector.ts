import { formatPaise, parseRupees } from '@payrail/protocol';
import type { Clock } from '../../clock.ts';
import type { UpstreamSettings } from '../../connectorConfig.ts';
import type {
  BankConnector,
  ConnectorBalance,
  ConnectorCapabilities,
  RailOutcome,
  SubmitAnswer,
  Transfer,
} from '../BankConnector.ts';
import { UpstreamClient, UpstreamUnreachable, type UpstreamAnswer } from './UpstreamClient.ts';
import { upstreamRefusal } from './upstreamCodes.ts';

/** The route on this server where the upstream's webhooks arrive (when PAYRAIL_UPSTREAM_WEBHOOK_SECRET is set). */
export const UPSTREAM_WEBHOOK_PATH = '/psp/v1/upstream/webhook';

/**
 * Pays payouts from Payrail's own account at an upstream provider that speaks the merchant interface (the
 * provider, or another Payrail). The upstream knows each payout by `sender_id` = the Payrail payout id, so a
 * submission whose answer was lost is found again by asking, never sent twice:
 * - a repeated submission (attempt > 1) first reads the payout by `sender_id`, and submits only on 4103;
 * - 4009 (the upstream already has it) is read back by `sender_id` and taken as the answer.
 * Permanent refusals fail the payout; temporary ones (the upstream account short, limits, the upstream down, a
 * timeout) keep it INITIATED and retry it until PAYRAIL_UPSTREAM_RETRY_FOR has passed.
 */
export class UpstreamConnector implements BankConnector {
  readonly name = 'upstream';
  readonly capabilities: ConnectorCapabilities = {
    payouts: true,
    collections: true,
    verification: false,
    polling: true,
    webhooks: true,
  };
  readonly submitDelayMs = 0;
  /** A repeated submission first reads the payout by sender_id (see submit). */
  readonly readsBackSubmissions = true;
  readonly retryForMs: number;
  readonly client: UpstreamClient;

  constructor(
    private readonly settings: UpstreamSettings,
    /** PAYRAIL_PUBLIC_URL (or the listen address): the upstream's webhooks come back to it. */
    private readonly publicUrl: () => string | undefined = () => undefined,
    private readonly clock: Clock,
  ) {
    this.retryForMs = settings.retryForMs;
    this.client = new UpstreamClient(settings, clock);
  }

  /** The upstream does not verify accounts for Payrail: initiation's own checks stand. */
  async verifyBeneficiary(): Promise<boolean> {
    return true;
  }

  async submit(transfer: Transfer): Promise<SubmitAnswer> {
    try {
      if (transfer.attempt > 1) {
        // An earlier submission may have reached the upstream: ask before sending anything.
        const known = await this.client.call('GET', statusPath(transfer.payoutId));
        if (known.code === 2000) return accepted(known);
        if (known.code !== 4103) return temporary(known);
      }
      const answer = await this.client.call('POST', '/payout/v1/initiate', this.initiation(transfer));
      if (answer.code === 2000) return accepted(answer);
      if (answer.code === 4009) {
        // The upstream already holds this payout: its record is the answer (never a second transfer).
        const known = await this.client.call('GET', statusPath(transfer.payoutId));
        return known.code === 2000 ? accepted(known) : temporary(known);
      }
      const refusal = upstreamRefusal(answer.code, answer.httpStatus);
      const reason = `upstream ${answer.code}: ${answer.message || 'no message'}`.slice(0, 255);
      return refusal === 'permanent' ? { accepted: false, reason } : { accepted: false, reason, temporary: true };
    } catch (err) {
      if (err instanceof UpstreamUnreachable) {
        return { accepted: false, temporary: true, reason: `upstream unreachable: ${err.message}`.slice(0, 255) };
      }
      throw err;
    }
  }

  /** The upstream's record of the payout, as an outcome; an unreachable upstream is an error (asked again). */
  async poll(transfer: Transfer): Promise<RailOutcome | null> {
    const answer = await this.client.call('GET', statusPath(transfer.payoutId));
    if (answer.code !== 2000 || !answer.data) {
      throw new Error(`upstream status ${answer.code}: ${answer.message || 'no message'}`);
    }
    return upstreamOutcome(answer.data);
  }

  pollDelayMs(status: 'PROCESSING' | 'PENDING'): number {
    return status === 'PENDING' ? this.settings.pollMs.pending : this.settings.pollMs.processing;
  }

  /** The upstream wallet's spendable balance (the treasury view reads it at most every 30 s). */
  async balance(): Promise<ConnectorBalance> {
    const answer = await this.client.call(
      'GET',
      `/payout/v1/balance?wallet_id=${encodeURIComponent(this.settings.walletId)}`,
    );
    const balance = answer.code === 2000 ? parseRupees(answer.data?.balance) : null;
    if (balance === null) throw new Error(`upstream balance ${answer.code}: ${answer.message || 'no balance'}`);
    return { balance, readAt: new Date(this.clock()) };
  }

  /** The initiation plaintext: nested beneficiary in V2, flat in V1 (the shapes each scheme's integrations send). */
  private initiation(t: Transfer): Record<string, unknown> {
    const beneficiary = {
      beneficiary_name: t.beneficiaryName,
      beneficiary_acc_number: t.accountNumber,
      beneficiary_ifsc: t.ifsc,
    };
    const base = public_(this.publicUrl());
    return {
      sender_id: t.payoutId,
      wallet_id: this.settings.walletId,
      payment_mode: t.paymentMode,
      amount: formatPaise(t.amount),
      ...(this.client.scheme === 'v2' ? { beneficiary } : beneficiary),
      ...(t.remarks ? { remarks: t.remarks } : {}),
      ...(this.settings.webhookSecret && base ? { callback_url: `${base}${UPSTREAM_WEBHOOK_PATH}` } : {}),
    };
  }
}

const public_ = (url: string | undefined) => url?.replace(/\/+$/, '');

const statusPath = (payoutId: string) => `/payout/v1/status?sender_id=${encodeURIComponent(payoutId)}`;

function accepted(answer: UpstreamAnswer): SubmitAnswer {
  const id = answer.data?.transaction_id;
  return typeof id === 'string' && id ? { accepted: true, reference: id } : { accepted: true };
}

function temporary(answer: UpstreamAnswer): SubmitAnswer {
  return {
    accepted: false,
    temporary: true,
    reason: `upstream ${answer.code}: ${answer.message || 'no message'}`.slice(0, 255),
  };
}

/** What Payrail's own return message starts with, when the upstream is another Payrail (said once, not twice). */
const RETURN_PREFIX = 'Returned by the beneficiary bank: ';

/**
 * The upstream's payout object as an outcome: INITIATED or PROCESSING → PROCESSING, PENDING → PENDING, SUCCESS with
 * its UTR, FAILED or REFUNDED → FAILED with the upstream's message (Payrail refunds its own wallet); after a
 * SUCCESS, a REFUNDED or FAILED report is a return. The upstream's `amount` and `transaction_id` come along, so that
 * an event about another transfer or another amount is refused (BankNotifications).
 */
export function upstreamOutcome(data: Record<string, unknown>): RailOutcome | null {
  const message = typeof data.status_message === 'string' && data.status_message ? data.status_message : '';
  const amount = data.amount === undefined || data.amount === null ? null : parseRupees(data.amount);
  const facts = {
    ...(amount === null ? {} : { amount, currency: 'INR' }),
    ...(typeof data.transaction_id === 'string' && data.transaction_id ? { reference: data.transaction_id } : {}),
  };
  switch (data.status) {
    case 'INITIATED':
    case 'PROCESSING':
      return { status: 'PROCESSING', ...facts };
    case 'PENDING':
      return { status: 'PENDING', ...(message ? { reason: `upstream: ${message}` } : {}), ...facts };
    case 'SUCCESS':
      return { status: 'SUCCESS', utr: String(data.utr_number ?? ''), ...facts };
    case 'FAILED':
    case 'REFUNDED': {
      // A return reported by another Payrail already reads "Returned by the beneficiary bank: <why>": keep the why.
      const why = message.startsWith(RETURN_PREFIX) ? message.slice(RETURN_PREFIX.length) : message;
      const reason = `upstream ${String(data.status)}: ${why || 'no message'}`;
      return { status: 'FAILED', reason: reason.slice(0, 255), ...facts };
    }
    default:
      return null;
  }
}
