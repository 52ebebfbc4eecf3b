import { Common, type CodeDef, type OperatorCode } from '@payrail/protocol';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RequestRejected } from '../../domain/RequestRejected.ts';
import { DatabaseUnavailable } from '../../domain/DatabaseUnavailable.ts';
import { RequestThrottled } from '../../domain/RequestThrottled.ts';
import { AdminError, sendAdminError } from '../AdminError.ts';
import { sendEnvelope } from '../sendEnvelope.ts';

function clientErrorDef(request: FastifyRequest, error: FastifyError): CodeDef {
  const config = request.routeOptions.config;
  if (error.statusCode === 413) return config.bodyTooLarge ?? Common.bodyTooLarge;
  if (error.validation) return config.invalidBody ?? Common.malformedRequest;
  return config.malformedBody ?? Common.malformedRequest;
}

/** SQLSTATE 22021 (e.g. a NUL byte in text) and 22P05 (e.g. \u0000 in jsonb), on both engines. */
function isUnstorableText(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '22021' || code === '22P05';
}

/**
 * Errors Fastify's router raises before any route is matched (a malformed percent-encoding in the path, a path
 * parameter over the length limit): answered in the same `{"error": {"code", "message"}}` shape as an unknown
 * route, instead of Fastify's own body. Passed as the `frameworkErrors` option of the Fastify instance.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode ?? 500;
  if (status >= 500) return sendAdminError(reply, 'internal', 'Internal server error');
  // Fastify's router raises 400 (a malformed path) and 414 (a path parameter over the length limit) here.
  if (status === 414) return sendAdminError(reply, 'uri_too_long', 'A path parameter is too long');
  return sendAdminError(reply, 'invalid_request', 'The request path is not valid');
}

/**
 * An error as both kinds of route answer it: the merchant envelope's code, and the operator API's JSON (a code of
 * protocol's OPERATOR_CODES, answered with the table's HTTP status). A merchant code refused on a plain route (the
 * payment page's buttons) has no operator code: that route answers the merchant code's number and status.
 */
interface Answer {
  def: CodeDef;
  json?: { code: OperatorCode; message: string };
  data?: unknown;
}

function answerFor(error: FastifyError, request: FastifyRequest): Answer {
  if (error instanceof RequestRejected) {
    const { def } = error;
    return { def, data: error.data };
  }
  if (isUnstorableText(error)) {
    // Input PostgreSQL cannot store as text (a NUL character): the client's mistake, not a server fault.
    const def = request.routeOptions.config.malformedBody ?? Common.malformedRequest;
    return { def, json: { code: 'invalid_request', message: 'Text must not contain NUL characters' } };
  }
  if (error instanceof DatabaseUnavailable) {
    // Transient: no stack, one line per request at warn, and HTTP 503 so that clients and balancers retry.
    request.log.warn({ reason: (error.reason as Error | undefined)?.message }, 'database unavailable');
    const def = Common.unavailable;
    return { def, json: { code: 'unavailable', message: def.message } };
  }
  const status = error.statusCode ?? 500;
  if (status === 429) {
    // The rate-limit plugin has already set Retry-After and RateLimit-* on the reply.
    return { def: Common.rateLimited, json: { code: 'rate_limited', message: Common.rateLimited.message } };
  }
  if (status === 415) {
    // A body in a media type we do not read (a form, text): the route's malformed-body code, with HTTP 415.
    const def = { ...clientErrorDef(request, error), http: 415 };
    const message = 'Send the body as JSON (Content-Type: application/json), or no body on routes that take none';
    return { def, json: { code: 'unsupported_media_type', message } };
  }
  if (status >= 400 && status < 500) {
    return {
      def: clientErrorDef(request, error),
      json: { code: status === 413 ? 'body_too_large' : 'invalid_request', message: error.message },
    };
  }
  request.log.error({ err: error }, 'unhandled error');
  return { def: Common.internal, json: { code: 'internal', message: 'Internal server error' } };
}

/**
 * One place turns every error into its documented answer, in the route's style. Anything unexpected is logged
 * (without request bodies) and answered 5000 without a stack trace.
 */
export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AdminError) {
      if (error.retryAfterSeconds) reply.header('retry-after', String(error.retryAfterSeconds));
      return sendAdminError(reply, error.code, error.message);
    }
    if (error instanceof RequestThrottled) reply.header('retry-after', String(error.retryAfterSeconds));
    const answer = answerFor(error, request);
    if (error instanceof DatabaseUnavailable) reply.header('retry-after', '1');
    const style = request.routeOptions.config?.errorStyle ?? 'plain';
    if (style === 'admin' || style === 'plain') {
      const { def, json } = answer;
      if (json) return sendAdminError(reply, json.code, json.message);
      return reply.code(def.http).send({ error: { code: String(def.code), message: def.message } });
    }
    return sendEnvelope(request, reply, answer.def, answer.data);
  });

  app.setNotFoundHandler((request, reply) =>
    sendAdminError(reply, 'route_not_found', `No route ${request.method} ${request.url.split('?')[0]}`),
  );
}
