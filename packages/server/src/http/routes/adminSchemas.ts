import { adminError } from '@payrail/protocol';
import type { FastifyRequest } from 'fastify';

export { adminError };

/** Schema pieces shared by the operator routes. */
export const adminRouteOptions = { config: { errorStyle: 'admin' as const } };

export const adminErrorResponses = {
  400: adminError,
  401: adminError,
  404: adminError,
  409: adminError,
} as const;

/**
 * Who an operator call is, as transaction histories name it: `operator:admin-token` for the admin token,
 * `operator:<e-mail>` for an operator's console session.
 */
export const historyActor = (request: FastifyRequest) =>
  request.actor?.via === 'session' ? `operator:${request.actor.name}` : 'operator:admin-token';
