import type { CodeDef } from '@payrail/protocol';
import type { Session } from '../services/TokenService.ts';

/** How a route answers errors: the payout (snake_case) or collection/token (camelCase) envelope, or admin JSON. */
export type ErrorStyle = 'payout' | 'collection' | 'admin' | 'plain';

declare module 'fastify' {
  interface FastifyContextConfig {
    errorStyle?: ErrorStyle;
    /** The code a body that fails schema validation gets on this route (default: 4000). */
    invalidBody?: CodeDef;
    /** The code a body that cannot be parsed at all gets on this route (default: 4000). */
    malformedBody?: CodeDef;
    /** The code a body over this route's size limit gets (default: Common.bodyTooLarge). */
    bodyTooLarge?: CodeDef;
  }
  interface FastifyInstance {
    routeTable: { method: string; url: string; hidden: boolean }[];
  }
  interface FastifyRequest {
    session: Session | null;
  }
}
