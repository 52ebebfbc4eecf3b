import type { FastifyRequest } from 'fastify';
import { safeEqual } from '../../domain/credentials.ts';
import { counterName, type FailureThrottle } from '../../services/FailureThrottle.ts';
import { AdminError } from '../AdminError.ts';

/** Failed admin authentications per client address: 15-minute window (the throttle's), then HTTP 429. */
export const ADMIN_FAILURE_WINDOW_MS = 15 * 60 * 1000;

export const adminThrottled = (retryAfterSeconds: number) =>
  new AdminError(429, 'rate_limited', 'Too many failed admin authentications, try again later', retryAfterSeconds);

/**
 * Bearer check of the operator API against PAYRAIL_ADMIN_TOKEN, in constant time. Failures are counted per
 * client address (CONTRACT.md §9); past `maxFailures` every request from that address, even with the right token,
 * gets 429 until the window passes, so that guessing gains nothing from the answers.
 */
export function requireAdmin(adminToken: string, throttle: FailureThrottle, maxFailures: number) {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const limits = [{ counter: counterName('adminfail:ip', request.ip), max: maxFailures }];
    const ok = await throttle.attempt(limits, async () =>
      match && safeEqual(match[1] as string, adminToken) ? true : null,
    );
    if (!ok) throw new AdminError(401, 'unauthorized', 'A valid admin bearer token is required');
  };
}
