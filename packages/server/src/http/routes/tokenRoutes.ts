import { encryptJson, merchantErrorResponses, ROUTE_SCHEMAS as R, TokenCodes } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { IssuedToken, TokenService } from '../../services/TokenService.ts';

const answer = (issued: IssuedToken) => ({
  respCode: TokenCodes.ok.code,
  respMessage: TokenCodes.ok.message,
  data: encryptJson({ token: issued.token }, issued.scheme, issued.merchant),
  expiresIn: issued.expiresIn,
  tokenType: 'Bearer',
});

/**
 * POST /v1/auth/client-token (V2, plain JSON) and POST /v1/auth/clients/token (V1: encrypted credentials, or
 * plain ones as the provider's live service takes them, whose session scheme is the merchant's default_scheme;
 * X-Api-Key optional). The schemas document the shapes; a body that does not fit them still reaches the token service
 * (`attachValidation`), which refuses it with 4001 and counts it toward the failed-token throttle.
 */
export function tokenRoutes(app: FastifyInstance, deps: { tokens: TokenService }) {
  const routeConfig = {
    errorStyle: 'collection' as const,
    invalidBody: TokenCodes.unauthorized,
    malformedBody: TokenCodes.unauthorized,
  };

  app.post(
    '/v1/auth/client-token',
    {
      config: routeConfig,
      attachValidation: true,
      schema: {
        tags: ['tokens'],
        summary: 'Issue a V2 token (credentials in plain JSON)',
        ...R['POST /v1/auth/client-token'],
        response: {
          ...R['POST /v1/auth/client-token'].response,
          ...merchantErrorResponses('POST /v1/auth/client-token'),
        },
      },
    },
    async (request) => answer(await deps.tokens.issueV2(request.body, request.ip)),
  );

  app.post(
    '/v1/auth/clients/token',
    {
      config: routeConfig,
      attachValidation: true,
      schema: {
        tags: ['tokens'],
        summary: 'Issue a V1 token (credentials encrypted with V1, or in plain JSON; X-Api-Key optional)',
        description:
          'Two forms. With `payload`: the V1-encrypted `{"apiKey","secretKey"}`; the session scheme is V1 (plain ' +
          'fields beside `payload` are ignored). Without `payload`: the credentials in plain JSON, ' +
          '`{"api_key","secret_key"}` or `{"apiKey","secretKey"}` (one spelling; mixing them is 4001); the session ' +
          "scheme is the merchant's `default_scheme` (v2 unless an operator set v1), and `data` is encrypted with it. " +
          'An `X-Api-Key` header, when given, must name the same merchant. Every failure is 4001 and counts toward ' +
          'the failed-token throttle.',
        ...R['POST /v1/auth/clients/token'],
        response: {
          ...R['POST /v1/auth/clients/token'].response,
          ...merchantErrorResponses('POST /v1/auth/clients/token'),
        },
      },
    },
    async (request) => answer(await deps.tokens.issueV1(request.body, request.headers['x-api-key'], request.ip)),
  );
}
