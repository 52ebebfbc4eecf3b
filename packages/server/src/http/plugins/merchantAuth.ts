import type { CodeDef } from '@payrail/protocol';
import type { FastifyRequest } from 'fastify';
import { RequestRejected } from '../../domain/RequestRejected.ts';
import type { Session, TokenService } from '../../services/TokenService.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The session of the request's bearer token, or null; a missing header is the same as an invalid token. */
export async function resolveSession(tokens: TokenService, request: FastifyRequest): Promise<Session | null> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? BEARER.exec(header) : null;
  return match ? tokens.verify(match[1] as string) : null;
}

/**
 * The authentication step of every merchant route: resolves the token, records the session (and with it the
 * scheme, V1 or V2) on the request, and refuses the request with the route's own code when there is none.
 */
export function requireMerchant(tokens: TokenService, unauthorized: CodeDef) {
  return async (request: FastifyRequest) => {
    request.session = await resolveSession(tokens, request);
    if (!request.session) throw new RequestRejected(unauthorized);
  };
}
