import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature of a PSP or bank notification (docs/operator/live-mode.md): header
 * `Payrail-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret as UTF-8, "<t>.<raw body>")>`.
 * The timestamp is signed with the body, so a captured notification cannot be replayed once it is older than the
 * tolerance; within it, replays are harmless because notifications are idempotent.
 */
export const PSP_SIGNATURE_HEADER = 'payrail-signature';

/** How far the signed timestamp may be from our clock, either way. */
export const PSP_SIGNATURE_TOLERANCE_SECONDS = 300;

export type PspSignatureCheck = 'ok' | 'missing' | 'malformed' | 'expired' | 'mismatch';

const MAX_HEADER_LENGTH = 1024;

function hmacHex(secret: string, timestamp: string, body: Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`, 'utf8').update(body).digest('hex');
}

/** The header value for `body` signed at `timestampSeconds` (what a PSP integration sends). */
export function signPspNotification(secret: string, body: string | Uint8Array, timestampSeconds: number): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const t = String(Math.floor(timestampSeconds));
  return `t=${t},v1=${hmacHex(secret, t, bytes)}`;
}

/**
 * Checks a `Payrail-Signature` header against the exact bytes received. Several `v1=` entries may be given (any
 * one matching suffices); unknown keys are ignored, so that a later scheme can be sent alongside.
 */
export function checkPspSignature(
  secret: string,
  header: string | undefined,
  body: Uint8Array,
  nowSeconds: number,
): PspSignatureCheck {
  if (header === undefined || header.trim() === '') return 'missing';
  if (header.length > MAX_HEADER_LENGTH) return 'malformed';
  let timestamp: string | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return 'malformed';
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^[0-9]{1,12}$/.test(value)) return 'malformed';
      timestamp = value;
    } else if (key === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return 'malformed';
      candidates.push(value.toLowerCase());
    }
  }
  if (timestamp === undefined || candidates.length === 0) return 'malformed';
  if (Math.abs(nowSeconds - Number(timestamp)) > PSP_SIGNATURE_TOLERANCE_SECONDS) return 'expired';
  const expected = Buffer.from(hmacHex(secret, timestamp, body), 'hex');
  const matches = candidates.some((c) => timingSafeEqual(Buffer.from(c, 'hex'), expected));
  return matches ? 'ok' : 'mismatch';
}
