import { formatPaise, ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { InvalidPricing, pricingRulesWire } from '../../domain/pricingPlan.ts';
import type { PricingService, StoredPlan } from '../../services/PricingService.ts';
import { AdminError } from '../AdminError.ts';
import { adminError, adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

/** A plan as the admin API answers it: rupees as text, with the GST rate it is charged with. */
function pricingView(plan: StoredPlan, gstRateBp: number) {
  return {
    merchant_id: plan.merchantId,
    name: plan.name,
    rules: pricingRulesWire(plan.rules),
    gst_rate: formatPaise(BigInt(gstRateBp)),
    created_at: plan.createdAt.toISOString(),
    updated_at: plan.updatedAt.toISOString(),
  };
}

/** Pricing plans (docs/operator/charging-merchants.md): set by finance, read by every role. */
export function adminPricingRoutes(app: FastifyInstance, deps: { pricing: PricingService; gstRateBp: number }) {
  app.put<RouteRequest<'PUT /admin/v1/merchants/:merchant_id/pricing'>>(
    '/admin/v1/merchants/:merchant_id/pricing',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'merchant.pricing' },
      schema: {
        tags: ['admin'],
        summary: 'Set the merchant’s pricing plan (replaces the one before; binds the next transaction)',
        ...R['PUT /admin/v1/merchants/:merchant_id/pricing'],
        response: {
          ...R['PUT /admin/v1/merchants/:merchant_id/pricing'].response,
          ...adminErrorResponses,
          400: { ...adminError, description: 'invalid_pricing: the message names the field and the rule it breaks' },
          403: adminError,
        },
      },
    },
    async (request) => {
      const { merchant_id } = request.params;
      let outcome;
      try {
        outcome = await deps.pricing.put(merchant_id, request.body);
      } catch (err) {
        if (err instanceof InvalidPricing) throw new AdminError('invalid_pricing', err.message);
        throw err;
      }
      if (!outcome.ok) throw AdminError.notFound('merchant');
      request.auditNote = `pricing plan "${outcome.plan.name}" for ${merchant_id}`;
      return pricingView(outcome.plan, deps.gstRateBp);
    },
  );

  app.get<RouteRequest<'GET /admin/v1/merchants/:merchant_id/pricing'>>(
    '/admin/v1/merchants/:merchant_id/pricing',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'The merchant’s pricing plan; 404 no_pricing when it has none (it pays no fees)',
        ...R['GET /admin/v1/merchants/:merchant_id/pricing'],
        response: { ...R['GET /admin/v1/merchants/:merchant_id/pricing'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const plan = await deps.pricing.get(request.params.merchant_id);
      if (!plan) throw new AdminError('no_pricing', `Merchant ${request.params.merchant_id} has no pricing plan`);
      return pricingView(plan, deps.gstRateBp);
    },
  );
}
