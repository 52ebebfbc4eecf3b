import type { FromSchema } from '../jsonSchema.ts';
import type { ROUTE_SCHEMAS, RouteKey } from './routes.ts';

type Schemas<K extends RouteKey> = (typeof ROUTE_SCHEMAS)[K];

/** The TypeScript type of one request part (`body`, `querystring`, ...) a route's schema declares; else unknown. */
type PartOf<S, P extends string> = S extends { readonly [K in P]: infer X } ? FromSchema<X> : unknown;

/** The parameters a route's path names: `:name` segments, and `*` for a wildcard. */
export type PathParamNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParamNames<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? Name
    : Path extends `${string}*`
      ? '*'
      : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The path parameters of a route. Most params schemas leave `required` out, as the router does not match a URL
 * without every parameter of its path: a parameter the path names is there, so its property is not optional here.
 */
type ParamsOf<K extends RouteKey> =
  PartOf<Schemas<K>, 'params'> extends infer P
    ? unknown extends P
      ? unknown
      : Simplify<Omit<P, PathParamNames<K>> & Required<Pick<P, PathParamNames<K> & keyof P>>>
    : never;

/**
 * The request of a route as its schema (ROUTE_SCHEMAS) declares it, in the shape of Fastify's route generic:
 * `app.post<RouteRequest<'POST /x'>>('/x', { schema: { ...R['POST /x'] } }, (request) => request.body...)`.
 * The handler reads the same schema Fastify validates the request with, so a change to the schema changes the
 * handler's types instead of leaving a hand-written second description behind. A part the route does not
 * declare is `unknown`, as Fastify's own default.
 *
 * Not modelled: a property's `default` (Ajv fills it in before the handler runs, yet the type keeps it optional)
 * and formats or patterns (a string is a string).
 */
export interface RouteRequest<K extends RouteKey> {
  Body: PartOf<Schemas<K>, 'body'>;
  Querystring: PartOf<Schemas<K>, 'querystring'>;
  Params: ParamsOf<K>;
  Headers: PartOf<Schemas<K>, 'headers'>;
}
