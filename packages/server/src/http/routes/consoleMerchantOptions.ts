import { ROUTE_SCHEMAS as R, type RouteKey } from '@payrail/protocol';
import type { FastifyRequest } from 'fastify';
import type { Merchant } from '../../domain/Merchant.ts';
import type { MerchantScope } from '../../services/MerchantScope.ts';
import { adminError, adminRouteOptions } from './adminSchemas.ts';

/** What every route of the merchant console shares (consoleMerchantRoutes.ts and its resources' files). */

const errors = { 400: adminError, 401: adminError, 403: adminError, 404: adminError, 429: adminError } as const;

/**
 * A merchant console route's options: operator-style errors, the audit action of a state-changing route, and its
 * schema from protocol's ROUTE_SCHEMAS with its summary and error answers.
 */
export function consoleMerchantRoute<const K extends RouteKey>(key: K, summary: string, audit?: string) {
  return {
    ...adminRouteOptions,
    config: { ...adminRouteOptions.config, ...(audit === undefined ? {} : { audit }) },
    schema: { tags: ['merchant console'], summary, ...R[key], response: { ...R[key].response, ...errors } },
  };
}

/** The signed-in merchant (set by the console's onRequest hook before any of its routes runs). */
export const merchantOf = (request: FastifyRequest) => request.consoleMerchant as Merchant;

/** What the signed-in merchant may read: its own rows only (the services answer null for another's). */
export const scopeOf = (request: FastifyRequest): MerchantScope => ({ merchantId: merchantOf(request).id });

/** Who a merchant's console action is in the audit log. */
export const auditedMerchant = (m: Merchant) => ({ name: `merchant:${m.id}`, displayName: m.name, role: 'merchant' });
