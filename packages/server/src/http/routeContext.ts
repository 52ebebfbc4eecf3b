import type { CodeDef } from '@payrail/protocol';
import type { FastifySchema } from 'fastify';
import type { Merchant } from '../domain/Merchant.ts';
import type { Actor, OperatorRole } from '../domain/Operator.ts';
import type { Session } from '../services/TokenService.ts';

/** How a route answers errors: the payout (snake_case) or collection/token (camelCase) envelope, or admin JSON. */
export type ErrorStyle = 'payout' | 'collection' | 'admin' | 'plain';

/** A route as registered: its method, URL and (once every onRoute hook has run) its schema. */
export interface RouteTableEntry {
  method: string;
  url: string;
  hidden: boolean;
  readonly schema: FastifySchema | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    errorStyle?: ErrorStyle;
    /** The code a body that fails schema validation gets on this route (default: 4000). */
    invalidBody?: CodeDef;
    /** The code a body that cannot be parsed at all gets on this route (default: 4000). */
    malformedBody?: CodeDef;
    /** Least operator role of an admin route (default: viewer for GET, admin for anything else). */
    role?: OperatorRole;
    /** The action name this route has in the audit log (default: method and route). */
    audit?: string;
    /** The code a body over this route's size limit gets (default: Common.bodyTooLarge). */
    bodyTooLarge?: CodeDef;
  }
  interface FastifyInstance {
    routeTable: RouteTableEntry[];
  }
  interface FastifyRequest {
    session: Session | null;
    /** Who calls an admin route: an operator's console session or the admin token. */
    actor: Actor | null;
    /** The merchant of a merchant console session. */
    consoleMerchant: Merchant | null;
    /** A line a route adds to its audit entry (e.g. the credit request it created). */
    auditNote: string | null;
  }
}
