import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ListenAddress } from '../listenAddress.ts';

/**
 * PAYRAIL_ADMIN_LISTEN (docs/operator/behind-a-proxy.md): the admin API and the console on a second address, the
 * main listener left with what the internet needs.
 *
 * One Fastify application serves both listeners: the second is a plain Node HTTP server that hands each request to
 * the application's own handler, marked as having come in through it, and an onRequest hook answers 404 on the
 * main listener for every route that is not public. Chosen over a second Fastify instance because that would
 * register and compile every route twice, keep two OpenAPI documents and two sets of in-memory rate limits, and
 * need a second graceful close; here there is one route table, one set of hooks, one close.
 */

/** Set on the requests that came in through the internal listener. */
const INTERNAL = Symbol('payrail.internalListener');

/**
 * The routes the main listener keeps (by their first path segment, after the `/api` rewrite): the merchant API,
 * the hosted payment page, signed PSP/bank/upstream notifications and the health probes. Everything else (admin,
 * console, /docs, /openapi.json, /metrics, `/`) is on the internal listener only: a route added later is internal
 * until it is named here.
 */
const PUBLIC_SEGMENTS = new Set([
  'v1',
  'payout',
  'collection',
  'settlement',
  'sandbox',
  'pay',
  'psp',
  'healthz',
  'readyz',
]);

/** Whether a route (its registered URL) is served on the main listener when PAYRAIL_ADMIN_LISTEN is set. */
export function isPublicRoute(url: string): boolean {
  return PUBLIC_SEGMENTS.has(url.split('/')[1] ?? '');
}

/** On the main listener, a route that is not public answers what an unknown route answers (404 route_not_found). */
export function registerListenerSplit(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if ((request.raw as IncomingMessage & { [INTERNAL]?: true })[INTERNAL]) return;
    const url = request.routeOptions.url;
    // An unknown route goes on to the not-found handler as usual.
    if (url === undefined || isPublicRoute(url)) return;
    reply.callNotFound();
    return reply;
  });
}

/** The internal listener: started by `listen`, closed (in-flight requests first) by `close`. */
export class InternalListener {
  private readonly server: Server;

  constructor(app: FastifyInstance) {
    this.server = createServer((req, res) => {
      (req as IncomingMessage & { [INTERNAL]?: true })[INTERNAL] = true;
      app.server.emit('request', req, res);
    });
    // As Fastify set on its own server (app.ts): a request must arrive whole in this long.
    this.server.requestTimeout = app.server.requestTimeout;
  }

  /** Listens on `address`; answers the URL it can be reached at (port 0: the one the system chose). */
  async listen(address: ListenAddress): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(address.port, address.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const bound = this.server.address();
    const port = bound && typeof bound === 'object' ? bound.port : address.port;
    const host = address.host.includes(':') ? `[${address.host}]` : address.host;
    return `http://${host}:${port}`;
  }

  /**
   * Stops accepting, lets in-flight requests finish for at most `graceMs` (their answers say `connection: close`
   * once the application is closing), then closes what is left.
   */
  async close(graceMs: number): Promise<void> {
    if (!this.server.listening) return;
    const deadline = setTimeout(() => this.server.closeAllConnections(), graceMs);
    deadline.unref();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    await closed;
    clearTimeout(deadline);
  }
}
