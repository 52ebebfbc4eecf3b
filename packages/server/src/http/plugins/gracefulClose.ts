import type { FastifyInstance } from 'fastify';

/**
 * Lets `app.close()` finish promptly while clients hold keep-alive connections. Node's `server.close()` only ends
 * connections that are idle at that instant; one that is busy with a request stays open after answering, until
 * the client or the keep-alive timeout (72 s) closes it, and shutdown would hang that long. So once closing has
 * begun, every answer says `Connection: close` and each connection that falls idle is closed.
 *
 * Requests that arrive on an open connection while closing are still served (Fastify's default answers them 503
 * with its own body): the database stays open until the HTTP server has drained.
 */
export function registerGracefulClose(app: FastifyInstance) {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.addHook('onResponse', async () => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
  });
}
