import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomAlphanumeric(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

export interface Credentials {
  apiKey: string;
  secretKey: string;
}

/** 32-character API key and 16-character secret key, so that both V1 (key/IV) and V2 work with them. */
export function generateCredentials(): Credentials {
  return { apiKey: randomAlphanumeric(32), secretKey: randomAlphanumeric(16) };
}

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function generateSecretToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Constant-time string comparison that does not leak the length through an early return either. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  const same = left.length === right.length;
  return timingSafeEqual(same ? left : right, right) && same;
}
