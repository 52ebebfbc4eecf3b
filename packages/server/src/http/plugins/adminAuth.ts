import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { counterName, type FailureThrottle } from '../../services/FailureThrottle.ts';
import { AdminError } from '../AdminError.ts';

/** Failed admin authentications per client address: 15-minute window (the throttle's), then HTTP 429. */
export const ADMIN_FAILURE_WINDOW_MS = 15 * 60 * 1000;

export const adminThrottled = (retryAfterSeconds: number) =>
  new AdminError('rate_limited', 'Too many failed admin authentications, try again later', retryAfterSeconds);

/** What the server keeps of the admin token: its SHA-256, never the token (docs/operator/secrets-at-rest.md). */
export const adminTokenHash = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/**
 * Bearer check of the operator API: SHA-256 of the presented token against the admin token's hash, in constant
 * time (both are 32 bytes, whatever was presented). Failures are counted per
 * client address (SECURITY.md); past `maxFailures` every request from that address, even with the right token,
 * gets 429 until the window passes, so that guessing gains nothing from the answers.
 *
 * `refused` hears of each wrong or missing token that was checked (never the token itself), for the audit log.
 * Requests the throttle refuses are not passed on: no token was looked at, and the throttle's limit is what
 * keeps the number of checked ones small.
 */
export function requireAdmin(
  tokenHash: Buffer,
  throttle: FailureThrottle,
  maxFailures: number,
  refused: (request: FastifyRequest) => Promise<void> = async () => {},
) {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const limits = [{ counter: counterName('adminfail:ip', request.ip), max: maxFailures }];
    const ok = await throttle.attempt(limits, async () =>
      match && timingSafeEqual(adminTokenHash(match[1] as string), tokenHash) ? true : null,
    );
    if (!ok) {
      await refused(request);
      throw new AdminError('unauthorized', 'A valid admin bearer token is required');
    }
  };
}
