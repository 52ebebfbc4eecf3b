import { decryptJsonObject, encryptJson, TokenCodes, type Scheme } from '@payrail/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RequestRejected } from '../../domain/RequestRejected.ts';
import { MerchantRepository } from '../../store/repositories/MerchantRepository.ts';
import type { Database } from '../../store/Database.ts';
import type { TokenService } from '../../services/TokenService.ts';
import type { TokenThrottle } from '../TokenThrottle.ts';

interface Deps {
  db: Database;
  tokens: TokenService;
  throttle: TokenThrottle;
}

const tokenResponse = {
  200: {
    type: 'object',
    properties: {
      respCode: { type: 'integer', const: 2000 },
      respMessage: { type: 'string' },
      data: { type: 'string', description: 'Encrypted `TokenData` (the session scheme: V2 or V1)' },
      expiresIn: { type: 'integer' },
      tokenType: { type: 'string', const: 'Bearer' },
    },
  },
} as const;

/** POST /v1/auth/client-token (V2, plain JSON) and POST /v1/auth/clients/token (V1, encrypted, X-Api-Key). */
export function tokenRoutes(app: FastifyInstance, deps: Deps) {
  const routeConfig = {
    errorStyle: 'collection' as const,
    invalidBody: TokenCodes.unauthorized,
    malformedBody: TokenCodes.unauthorized,
  };

  /**
   * Issues a token when the credentials are right. `throttleKey` is the API key the request claims (for V1 the
   * X-Api-Key header, even when the payload does not decrypt), so that every failure counts against that key.
   */
  async function issue(
    request: FastifyRequest,
    apiKey: unknown,
    secretKey: unknown,
    scheme: Scheme,
    throttleKey: string,
  ) {
    const issued = await deps.throttle.attempt(throttleKey, request.ip, async () =>
      typeof apiKey === 'string' && typeof secretKey === 'string' ? deps.tokens.issue(apiKey, secretKey, scheme) : null,
    );
    if (!issued) throw new RequestRejected(TokenCodes.unauthorized);
    return {
      respCode: TokenCodes.ok.code,
      respMessage: TokenCodes.ok.message,
      data: encryptJson({ token: issued.token }, scheme, issued.merchant),
      expiresIn: issued.expiresIn,
      tokenType: 'Bearer',
    };
  }

  app.post(
    '/v1/auth/client-token',
    {
      config: routeConfig,
      schema: {
        tags: ['tokens'],
        summary: 'Issue a V2 token (credentials in plain JSON)',
        body: {
          type: 'object',
          required: ['apiKey', 'secretKey'],
          properties: { apiKey: { type: 'string' }, secretKey: { type: 'string' } },
        },
        response: tokenResponse,
      },
    },
    async (request) => {
      const body = request.body as { apiKey: string; secretKey: string };
      return issue(request, body.apiKey, body.secretKey, 'v2', body.apiKey);
    },
  );

  app.post(
    '/v1/auth/clients/token',
    {
      config: routeConfig,
      schema: {
        tags: ['tokens'],
        summary: 'Issue a V1 token (credentials encrypted with V1; merchant named by X-Api-Key)',
        headers: { type: 'object', properties: { 'x-api-key': { type: 'string' } } },
        body: {
          type: 'object',
          required: ['payload'],
          properties: { payload: { type: 'string', description: 'V1-encrypted `{"apiKey","secretKey"}`' } },
        },
        response: tokenResponse,
      },
    },
    async (request) => {
      const headerKey = request.headers['x-api-key'];
      const apiKey = typeof headerKey === 'string' ? headerKey : '';
      const merchant = apiKey ? await MerchantRepository.findByApiKey(deps.db, apiKey) : null;
      let plain: Record<string, unknown> = {};
      if (merchant) {
        try {
          plain = decryptJsonObject((request.body as { payload: string }).payload, 'v1', merchant);
        } catch {
          plain = {};
        }
      }
      // The decrypted apiKey must be the header's; issue() then checks both against the store.
      const sameKey = typeof plain.apiKey === 'string' && plain.apiKey === apiKey;
      return issue(request, sameKey ? apiKey : undefined, plain.secretKey, 'v1', apiKey);
    },
  );
}
