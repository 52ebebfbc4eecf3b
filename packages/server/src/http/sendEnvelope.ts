import { encryptJson, envelope, type CodeDef } from '@payrail/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Sends a merchant envelope in the route's style (payout or collection): a route's success answer, and the error
 * handler's answer of a merchant code. `data` (a plaintext object) is encrypted with the session's scheme and keys.
 */
export function sendEnvelope(request: FastifyRequest, reply: FastifyReply, def: CodeDef, data?: unknown) {
  const style = request.routeOptions.config.errorStyle === 'payout' ? 'payout' : 'collection';
  const session = request.session;
  const encrypted =
    data === undefined || session === null ? undefined : encryptJson(data, session.scheme, session.merchant);
  return reply.code(def.http).send(envelope(style, def, encrypted));
}
