import type { errorResponseBuilderContext } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';

/**
 * Per-merchant, per-endpoint request limits on the status endpoints (docs/merchant/api-reference.md), on @fastify/rate-limit:
 * a fixed one-minute window, counters in memory or in Redis (shared by every instance). Past the limit the
 * plugin sets Retry-After and RateLimit-* and throws a 429, which the error handler turns into 4290 in the
 * endpoint's own envelope. Requests without a session are not counted (they are refused anyway). Routes that
 * are one endpoint (the GET and POST forms of collection status) share one counter: ask for the same name.
 */
export class StatusRateLimit {
  /** One limiter per endpoint name: each limiter has its own in-memory store, so sharing means the same one. */
  private readonly hooks = new Map<string, preHandlerAsyncHookHandler>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly perMinute: number,
  ) {}

  hook(endpoint: string): preHandlerAsyncHookHandler {
    let hook = this.hooks.get(endpoint);
    if (!hook) {
      hook = this.create(endpoint);
      this.hooks.set(endpoint, hook);
    }
    return hook;
  }

  private create(endpoint: string): preHandlerAsyncHookHandler {
    return this.app.rateLimit({
      max: this.perMinute,
      timeWindow: 60_000,
      hook: 'preHandler',
      // The store itself falls back to memory when Redis is unreachable; should anything else fail, answer the
      // request rather than fail it: the limit protects, it must not break.
      skipOnError: true,
      keyGenerator: (request: FastifyRequest) => `${endpoint}:${request.session?.merchant.id ?? 'anonymous'}`,
      allowList: (request: FastifyRequest) => request.session === null,
      errorResponseBuilder: (_request: FastifyRequest, context: errorResponseBuilderContext) =>
        Object.assign(new Error(`Rate limit exceeded, retry in ${context.after}`), { statusCode: 429 }),
    }) as preHandlerAsyncHookHandler;
  }
}
