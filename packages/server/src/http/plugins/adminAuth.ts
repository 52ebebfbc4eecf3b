import type { FastifyRequest } from 'fastify';
import { safeEqual } from '../../domain/credentials.ts';
import { AdminError } from '../AdminError.ts';

/** Bearer check of the operator API against PAYRAIL_ADMIN_TOKEN, in constant time. */
export function requireAdmin(adminToken: string) {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !safeEqual(match[1] as string, adminToken)) {
      throw new AdminError(401, 'unauthorized', 'A valid admin bearer token is required');
    }
  };
}
