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
  const signature = secrets.map((s) => new Webhook(s).sign(id, timestamp, body)).join(' ');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  };
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
