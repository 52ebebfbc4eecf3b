import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing (docs/merchant/webhooks.md): `webhook-signature` = `v1,` + base64(HMAC-SHA256(key,
 * `${id}.${timestamp}.${body}`)), key = base64-decode of the secret after `whsec_`.
 */
// A type alias (not an interface) so that it is assignable to a plain header record.
export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/**
 * Signs with one secret, or several (a rotation: newest first): the header then holds one space-separated
 * `v1,…` entry per secret, as Standard Webhooks allows; a verifier accepts any one that matches.
 */
export function signWebhook(
  secret: string | readonly string[],
  id: string,
  timestamp: Date,
  body: string,
): WebhookHeaders {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  const seconds = String(Math.floor(timestamp.getTime() / 1000));
  const signed = `${id}.${seconds}.${body}`;
  const signature = secrets
    .map((s) => `v1,${createHmac('sha256', keyOf(s)).update(signed).digest('base64')}`)
    .join(' ');
  return { 'webhook-id': id, 'webhook-timestamp': seconds, 'webhook-signature': signature };
}

const keys = new Map<string, Buffer>();
const MAX_KEYS = 1024;
/** The prefix of a Standard Webhooks secret, before the base64 of its key. */
const WHSEC = 'whsec_';

/**
 * The HMAC key of a secret, decoded once. Signing runs on node:crypto rather than the library's pure-JavaScript
 * SHA-256, which cost a webhook-heavy drain about 1.5 % of the server's CPU. The library still judges the secret
 * (`new Webhook(secret)` throws on a malformed or empty one, with its own error), so what it refuses is refused as
 * before; what it accepts is strict base64, which Buffer decodes to the same bytes, and
 * test/webhookSignature.test.ts holds the two signatures equal.
 */
function keyOf(secret: string): Buffer {
  let key = keys.get(secret);
  if (key === undefined) {
    new Webhook(secret);
    key = Buffer.from(secret.startsWith(WHSEC) ? secret.slice(WHSEC.length) : secret, 'base64');
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value as string);
    keys.set(secret, key);
  }
  return key;
}

/**
 * Verifies signature and age (the library refuses timestamps more than five minutes away) and returns the
 * parsed body; throws on any mismatch.
 */
export function verifyWebhook(secret: string, body: string, headers: Record<string, string | string[] | undefined>) {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return new Webhook(secret).verify(body, flat) as unknown;
}
