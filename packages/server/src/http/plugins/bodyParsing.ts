import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';

/** A route that declares no body schema takes no body (e.g. wallet creation, rotations, replay). */
const takesNoBody = (request: FastifyRequest) => !request.routeOptions.schema?.body;

/**
 * Body parsing rules (docs/operator/admin-api.md): a POST that takes no body accepts an empty one whatever its
 * `Content-Type` (`curl -X POST -H 'Content-Type: application/json'`, or `curl -d ''` which says form); a JSON
 * body is parsed as Fastify does (prototype-poisoning checks included); any other non-empty body is refused
 * with Fastify's 415 error (text/plain included), which the error handler answers in the route's style.
 */
export function registerBodyParsing(app: FastifyInstance) {
  const json = app.getDefaultJsonParser('error', 'error');
  // Fastify also reads text/plain by default: only JSON is read here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && takesNoBody(request)) {
      done(null, undefined);
      return;
    }
    json(request, body as string, done);
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if ((body as Buffer).length === 0 && takesNoBody(request)) {
      done(null, undefined);
      return;
    }
    done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(String(request.headers['content-type'] ?? '')), undefined);
  });
}
