import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  DecryptError,
  decryptJsonObject,
  verifyBodySignature,
  WEBHOOK_EVENT_TYPES,
  type Scheme,
} from '@payrail/protocol';
import type { Core } from './core.ts';
import { ConfigurationError, WebhookVerificationError } from './errors.ts';
import { ShapeError, toBatchCompleted, toCollection, toDeposit, toPayout, toSettlement } from './mapping.ts';
import type {
  PayoutEventType,
  SettlementEventType,
  VerifyOptions,
  WebhookEvent,
  WebhookEventType,
  WebhookHeaders,
} from './types.ts';
import { systemNow } from './clock.ts';

const DEFAULT_TOLERANCE_SECONDS = 300;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) {
    throw new ConfigurationError({
      code: 'CONFIG',
      message: 'webhookSecret is not a whsec_… secret',
      operation: 'webhooks.verify',
    });
  }
  return key;
}

const bytesOf = (body: string | Uint8Array): Buffer =>
  typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);

/**
 * Standard Webhooks verification (docs/merchant/webhooks.md): `webhook-signature` holds one or more space-separated
 * `v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`; any one matching (compared in constant time) will do.
 */
export function verifySignature(secret: string, id: string, timestamp: string, body: Buffer, signatures: string) {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.`).update(body).digest();
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === mac.length && timingSafeEqual(given, mac);
  });
}

export class Webhooks {
  constructor(private readonly core: Core) {}

  /**
   * Checks a delivery (its Standard Webhooks headers, or when they are absent its `X-Signature`) and returns
   * its event with `data` decrypted and typed, or throws
   * `WebhookVerificationError` (`reason`: missing_headers, signature, stale, malformed, undecryptable).
   * Pass the body exactly as received (the raw text or bytes, before any JSON parsing).
   */
  async verify(
    rawBody: string | Uint8Array,
    headers: WebhookHeaders,
    options: VerifyOptions = {},
  ): Promise<WebhookEvent> {
    const secret = this.core.webhookSecret;
    if (!secret) {
      throw new ConfigurationError({
        code: 'CONFIG',
        message: 'webhooks.verify needs the webhookSecret option',
        operation: 'webhooks.verify',
      });
    }
    return verifyDelivery(rawBody, headers, {
      ...options,
      secret,
      keys: this.core.keys,
      schemes: this.core.scheme === 'v2' ? ['v2', 'v1'] : ['v1', 'v2'],
    });
  }
}

export async function verifyDelivery(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  options: VerifyOptions & { secret: string; keys: { apiKey: string; secretKey: string }; schemes: Scheme[] },
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  // The provider's X-Paywize-Signature carries the same value (a relay may pass on only one of the two).
  const xSignature = header(headers, 'x-signature') ?? header(headers, 'x-paywize-signature');
  // Standard Webhooks headers when present (they also date the delivery); else the plain body HMAC.
  const standard = Boolean(id && timestamp && signatures);
  if (!standard && !xSignature) {
    throw new WebhookVerificationError(
      'missing_headers',
      'The delivery lacks webhook-id, webhook-timestamp and webhook-signature, and X-Signature (or X-Paywize-Signature)',
    );
  }
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new WebhookVerificationError('malformed', 'Pass the raw body (string or bytes), not a parsed object');
  }
  const body = bytesOf(rawBody);
  let signedAt: number | null = null;
  if (standard) {
    if (!verifySignature(options.secret, id as string, timestamp as string, body, signatures as string)) {
      throw new WebhookVerificationError('signature', 'The webhook signature does not match');
    }
    if (!/^\d{1,12}$/.test(timestamp as string)) {
      throw new WebhookVerificationError('malformed', 'webhook-timestamp is not a time');
    }
    signedAt = Number(timestamp) * 1000;
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    const now = options.now?.getTime() ?? systemNow();
    if (Math.abs(now - signedAt) > tolerance * 1000) {
      throw new WebhookVerificationError(
        'stale',
        `The delivery was signed ${Math.round((now - signedAt) / 1000)} s ago, beyond the ${tolerance} s allowed`,
      );
    }
  } else if (!verifyBodySignature(options.secret, body, xSignature)) {
    // X-Signature carries no time: deduplicate by the event id to be safe against replays.
    throw new WebhookVerificationError('signature', 'The X-Signature does not match');
  }

  let event: Record<string, unknown>;
  try {
    event = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new WebhookVerificationError('malformed', 'The body is not JSON');
  }
  const type = event?.type as WebhookEventType;
  const eventId = standard ? id : event?.id;
  const wellFormed = typeof eventId === 'string' && event?.id === eventId && typeof event.data === 'string';
  if (!wellFormed || !WEBHOOK_EVENT_TYPES.includes(type)) {
    throw new WebhookVerificationError('malformed', 'The body is not a Payrail event for this webhook-id');
  }

  // `data` uses the scheme of the session that created the transaction: the client's own first.
  let data: Record<string, unknown> | undefined;
  for (const scheme of options.schemes) {
    try {
      data = decryptJsonObject(event.data, scheme, options.keys);
      break;
    } catch (err) {
      if (!(err instanceof DecryptError)) throw err;
    }
  }
  if (!data) {
    throw new WebhookVerificationError('undecryptable', "The event data does not decrypt with this client's keys");
  }

  const createdAt = new Date(String(event.created_at));
  try {
    // With X-Signature alone the delivery carries no signing time: the event's own time stands in.
    const base = { id: eventId as string, createdAt, timestamp: signedAt === null ? createdAt : new Date(signedAt) };
    if (type === 'payout.batch.completed') return { ...base, type, kind: 'batch', data: toBatchCompleted(data) };
    if (type === 'deposit.credited') return { ...base, type, kind: 'deposit', data: toDeposit(data) };
    if (type.startsWith('settlement.')) {
      return { ...base, type: type as SettlementEventType, kind: 'settlement', data: toSettlement(data) };
    }
    return type.startsWith('payout.')
      ? { ...base, type: type as PayoutEventType, kind: 'payout', data: toPayout(data) }
      : {
          ...base,
          type: type as Extract<WebhookEventType, `collection.${string}`>,
          kind: 'collection',
          data: toCollection(data),
        };
  } catch (err) {
    if (err instanceof ShapeError)
      throw new WebhookVerificationError('malformed', `Unreadable event data: ${err.message}`);
    throw err;
  }
}
