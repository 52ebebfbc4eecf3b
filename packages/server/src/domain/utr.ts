import { randomInt } from 'node:crypto';

/** A 12-digit bank reference (like an IMPS RRN), for the sandbox and for operator resolutions without one. */
export function newUtr(): string {
  return String(randomInt(100_000, 1_000_000)) + String(randomInt(100_000, 1_000_000));
}
