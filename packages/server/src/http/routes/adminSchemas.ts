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
 * What every operator route can answer before its handler runs (operatorAuth): no valid credentials, or too many
 * failed ones from this address. For the routes that answer nothing else of their own.
 */
export const adminAuthErrorResponses = {
  401: { ...adminError, description: 'unauthorized: no valid admin token or console session' },
  429: { ...adminError, description: 'rate_limited: too many failed authentications from this address' },
} as const;

/**
 * Who an operator call is, as transaction histories name it: `operator:admin-token` for the admin token,
 * `operator:<e-mail>` for an operator's console session.
 */
export const historyActor = (request: FastifyRequest) =>
  request.actor?.via === 'session' ? `operator:${request.actor.name}` : 'operator:admin-token';
