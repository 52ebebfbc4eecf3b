import { randomInt } from 'node:crypto';

/** A 12-digit bank reference (like an IMPS RRN), for the sandbox and for operator resolutions without one. */
export function newUtr(): string {
  return String(randomInt(100_000, 1_000_000)) + String(randomInt(100_000, 1_000_000));
}

/** A bank reference as Payrail stores one: 1–40 printable ASCII characters, no spaces. */
export const UTR_PATTERN = /^[\x21-\x7e]{1,40}$/;

export const isUtr = (value: unknown): value is string => typeof value === 'string' && UTR_PATTERN.test(value);
