import { describe, expectTypeOf, it } from 'vitest';
import type {
  CollectionStatus,
  FromSchema,
  PathParamNames,
  PayoutStatus,
  ROUTE_SCHEMAS,
  RouteKey,
  RouteRequest,
} from '../src/index.ts';

// Type-level checks: `tsc` (npm run typecheck) fails when one does not hold; at run time these tests do nothing.
// A handler declared `app.post<RouteRequest<K>>(...)` reads these types, so what they show is what a schema
// change does to the handlers.

describe('RouteRequest', () => {
  it('types a body as its schema: required fields required, the others optional, an enum its union', () => {
    expectTypeOf<RouteRequest<'POST /admin/v1/operators'>['Body']>().toEqualTypeOf<{
      email: string;
      role: 'viewer' | 'finance' | 'admin';
      password: string;
      name?: string;
    }>();
    expectTypeOf<RouteRequest<'POST /admin/v1/payouts/:transaction_id/resolve'>['Body']>().toEqualTypeOf<{
      status: 'SUCCESS' | 'FAILED';
      utr_number?: string;
    }>();
  });

  it('follows anyOf and nullable types (an amount is text or a number; a limit may be null)', () => {
    type Patch = RouteRequest<'PATCH /admin/v1/merchants/:merchant_id'>['Body'];
    expectTypeOf<Patch['daily_limit']>().toEqualTypeOf<string | number | null | undefined>();
    expectTypeOf<Patch['upi_vpa']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<RouteRequest<'POST /admin/v1/wallets/:wallet_id/credits'>['Body']>().toEqualTypeOf<{
      amount: string | number;
      reference?: string;
    }>();
  });

  it('types a query string, its status filters being the wire statuses', () => {
    type Payouts = RouteRequest<'GET /admin/v1/payouts'>['Querystring'];
    expectTypeOf<Payouts['status']>().toEqualTypeOf<PayoutStatus | undefined>();
    expectTypeOf<Payouts['limit']>().toEqualTypeOf<string | undefined>();
    type Collections = RouteRequest<'GET /console/api/merchant/collections'>['Querystring'];
    expectTypeOf<Collections['status']>().toEqualTypeOf<CollectionStatus | undefined>();
    // The batch list replaces the common cursor by a longer one: still a string, not both schemas at once.
    expectTypeOf<RouteRequest<'GET /console/api/merchant/batches'>['Querystring']['cursor']>().toEqualTypeOf<
      string | undefined
    >();
  });

  it('makes every parameter the path names present, whether or not the schema lists it as required', () => {
    expectTypeOf<RouteRequest<'GET /admin/v1/payouts/:transaction_id'>['Params']>().toEqualTypeOf<{
      transaction_id: string;
    }>();
    expectTypeOf<
      RouteRequest<'POST /admin/v1/reconciliation/runs/:run_id/items/:item_id/close'>['Params']
    >().toEqualTypeOf<{ run_id: string; item_id: string }>();
    expectTypeOf<RouteRequest<'GET /console/assets/*'>['Params']>().toEqualTypeOf<{ '*': string }>();
    expectTypeOf<PathParamNames<'GET /admin/v1/batches/:merchant_id/:batch_id'>>().toEqualTypeOf<
      'merchant_id' | 'batch_id'
    >();
  });

  it('types headers a route declares', () => {
    expectTypeOf<RouteRequest<'POST /v1/auth/clients/token'>['Headers']>().toEqualTypeOf<{ 'x-api-key'?: string }>();
  });

  it('leaves a part the route does not declare unknown, as Fastify does', () => {
    expectTypeOf<RouteRequest<'GET /admin/v1/payouts'>['Body']>().toBeUnknown();
    expectTypeOf<RouteRequest<'POST /admin/v1/merchants'>['Params']>().toBeUnknown();
    // A raw body route: the route reads the bytes itself.
    expectTypeOf<RouteRequest<'POST /psp/v1/upstream/webhook'>['Body']>().toBeUnknown();
  });

  it('is the schema of every route, through FromSchema', () => {
    type BodyOf<K extends RouteKey> = (typeof ROUTE_SCHEMAS)[K] extends { body: infer B } ? FromSchema<B> : unknown;
    type QueryOf<K extends RouteKey> = (typeof ROUTE_SCHEMAS)[K] extends { querystring: infer Q }
      ? FromSchema<Q>
      : unknown;
    expectTypeOf<{ [K in RouteKey]: RouteRequest<K>['Body'] }>().toEqualTypeOf<{ [K in RouteKey]: BodyOf<K> }>();
    expectTypeOf<{ [K in RouteKey]: RouteRequest<K>['Querystring'] }>().toEqualTypeOf<{
      [K in RouteKey]: QueryOf<K>;
    }>();
  });
});

describe('FromSchema', () => {
  it('changes with the schema: dropping a field from `required` makes it optional', () => {
    type Outcome = { readonly type: 'string'; readonly enum: readonly ['SUCCESS', 'FAILED'] };
    type RequiredOutcome = {
      readonly type: 'object';
      readonly required: readonly ['outcome'];
      properties: { outcome: Outcome };
    };
    type OptionalOutcome = { readonly type: 'object'; properties: { outcome: Outcome } };
    expectTypeOf<FromSchema<RequiredOutcome>>().toEqualTypeOf<{ outcome: 'SUCCESS' | 'FAILED' }>();
    expectTypeOf<FromSchema<OptionalOutcome>>().toEqualTypeOf<{ outcome?: 'SUCCESS' | 'FAILED' }>();
  });

  it('ignores keywords that do not change the type (pattern, format, lengths, bounds, default)', () => {
    type Schema = {
      readonly type: 'object';
      readonly required: readonly ['day'];
      readonly properties: {
        day: { type: 'string'; pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'; format: 'date'; maxLength: 10 };
        limit: { type: 'integer'; minimum: 1; maximum: 500; default: 100 };
      };
    };
    expectTypeOf<FromSchema<Schema>>().toEqualTypeOf<{ day: string; limit?: number }>();
  });
});
