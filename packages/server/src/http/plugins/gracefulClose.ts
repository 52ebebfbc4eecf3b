import type { FastifyInstance } from 'fastify';

/**
 * Lets `app.close()` finish promptly while clients hold keep-alive connections. Node's `server.close()` only ends
 * connections that are idle at that instant; one that is busy with a request stays open after answering, until
 * the client or the keep-alive timeout (72 s) closes it, and shutdown would hang that long. So once closing has
 * begun, every answer says `Connection: close` and each connection that falls idle is closed.
 *
 * Requests that arrive on an open connection while closing are still served (Fastify's default answers them 503
 * with its own body): the database stays open until the HTTP server has drained.
 *
 * Draining ends after `graceMs` whatever is left: a client that sent its headers and never the whole body keeps
 * its request in flight (no answer, no idle moment), and `app.close()` waited for it without end. Real time, not
 * the injected clock: this bounds how long the process takes to exit, which only a real timer can.
 */
export function registerGracefulClose(app: FastifyInstance, graceMs: number) {
  let closing = false;
  let deadline: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    deadline = setTimeout(() => app.server.closeAllConnections(), graceMs);
    deadline.unref();
  });
  app.addHook('onClose', async () => {
    clearTimeout(deadline);
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.addHook('onResponse', async () => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
  });
}
