import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The `X-Signature` header existing integrations verify (docs/merchant/webhooks.md): `sha256=` + hex HMAC-SHA256 of the
 * exact body, keyed with the `webhook_secret` string itself as UTF-8 bytes (not base64-decoded). During a
 * secret rotation the header carries one value per secret, newest first, separated by commas.
 */
export const BODY_SIGNATURE_HEADER = 'x-signature';
/**
 * The same value under the header name the provider documents and many integrations read (`X-Paywize-Signature`):
 * every delivery carries both.
 */
export const PROVIDER_SIGNATURE_HEADER = 'x-paywize-signature';

const bytes = (body: string | Uint8Array): Buffer =>
  typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);

function mac(secret: string, body: string | Uint8Array): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(bytes(body)).digest();
}

/** `sha256=<hex>` for each secret, comma-separated. */
export function signBody(secrets: string | readonly string[], body: string | Uint8Array): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return list.map((s) => `sha256=${mac(s, body).toString('hex')}`).join(',');
}

/**
 * True when one of the header's `sha256=<hex>` values is the HMAC of `body` under `secret`. Never throws: a
 * missing, short, oversized or malformed header is simply false (compared in constant time only when the
 * lengths match).
 */
export function verifyBodySignature(
  secret: string,
  body: string | Uint8Array,
  header: string | readonly string[] | null | undefined,
): boolean {
  if (header === null || header === undefined) return false;
  const text = typeof header === 'string' ? header : header.join(',');
  if (text.length > 4096) return false;
  const expected = mac(secret, body);
  return text.split(',').some((entry) => {
    const m = /^\s*sha256=([0-9a-fA-F]{64})\s*$/.exec(entry);
    if (!m) return false;
    const given = Buffer.from(m[1] as string, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
