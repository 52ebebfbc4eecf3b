import type { RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { Mode } from '../../config.ts';
import { auditedApiKey, signInApiKey } from '../../domain/signInIdentity.ts';
import type { AuditService } from '../../services/AuditService.ts';
import { csrfTokenOf, type ConsoleSessionService } from '../../services/ConsoleSessionService.ts';
import type { SignInThrottle } from '../../services/SignInThrottle.ts';
import { clearSessionCookie, readCookie } from '../consoleCookies.ts';
import { consoleSignIn } from '../consoleSignIn.ts';
import { recordAudit } from '../plugins/operatorAuth.ts';
import { merchantJson } from '../views/merchantJson.ts';
import { auditedMerchant, consoleMerchantRoute, merchantOf } from './consoleMerchantOptions.ts';

interface Deps {
  consoleSessions: ConsoleSessionService;
  signInThrottle: SignInThrottle;
  audit: AuditService;
  config: { publicUrl?: string; mode?: Mode };
}

/** The merchant's session cookie: its name and whether it is sent over https only. */
export interface MerchantCookie {
  name: string;
  secure: boolean;
}

/** Merchant sign-in with its API key and secret key (before any session: on the app itself). */
export function consoleMerchantSignInRoute(app: FastifyInstance, deps: Deps, cookie: MerchantCookie) {
  app.post<RouteRequest<'POST /console/api/merchant/session'>>(
    '/console/api/merchant/session',
    consoleMerchantRoute(
      'POST /console/api/merchant/session',
      'Merchant sign-in with API key and secret key: a session cookie limited to that merchant',
      'merchant.sign_in',
    ),
    async (request, reply) => {
      const body = request.body;
      // One spelling for the throttle and the lookup: a variant of the key must not get a fresh counter.
      const apiKey = signInApiKey(body.api_key);
      const { subject, answer } = await consoleSignIn(deps, request, reply, {
        action: 'merchant.sign_in',
        account: apiKey,
        // A failed sign-in names the key by a short hash only (never the key, never the secret).
        claimed: { name: auditedApiKey(apiKey), displayName: '', role: 'merchant' },
        verify: () => deps.consoleSessions.signInMerchant(apiKey, body.secret_key, request.ip),
        wrong: { why: 'wrong API key or secret key', message: 'Wrong API key or secret key' },
        signedIn: auditedMerchant,
        // Written as every merchant console action is (the route's audit action, its kept fields and its note).
        record: (status, actor, note) => {
          if (note !== undefined) request.auditNote = note;
          return recordAudit(deps.audit, request, status, actor);
        },
        cookie,
      });
      return { merchant: merchantJson(subject), ...answer };
    },
  );
}

/** The signed-in merchant's session: read it (with the CSRF token), and sign out. */
export function consoleMerchantSessionRoutes(scope: FastifyInstance, deps: Deps, cookie: MerchantCookie) {
  scope.get(
    '/console/api/merchant/session',
    consoleMerchantRoute('GET /console/api/merchant/session', 'The signed-in merchant and the CSRF token'),
    async (request) => {
      const token = readCookie(request, cookie.name) as string;
      return {
        merchant: merchantJson(merchantOf(request)),
        csrf_token: csrfTokenOf(token),
        mode: deps.config.mode ?? 'sandbox',
      };
    },
  );

  scope.delete(
    '/console/api/merchant/session',
    consoleMerchantRoute(
      'DELETE /console/api/merchant/session',
      'Merchant sign-out (needs X-CSRF-Token)',
      'merchant.sign_out',
    ),
    async (request, reply) => {
      await deps.consoleSessions.signOut(readCookie(request, cookie.name) as string);
      clearSessionCookie(reply, cookie.name, cookie.secure);
      return reply.code(204).send();
    },
  );
}
