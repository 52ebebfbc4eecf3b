import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Mode } from '../../config.ts';
import type { Operator } from '../../domain/Operator.ts';
import { signInEmail } from '../../domain/signInIdentity.ts';
import type { AuditService } from '../../services/AuditService.ts';
import { csrfTokenOf, type ConsoleSessionService } from '../../services/ConsoleSessionService.ts';
import { AdminError } from '../AdminError.ts';
import { clearSessionCookie, consoleCookieNames, readCookie, secureCookies } from '../consoleCookies.ts';
import { consoleSignIn } from '../consoleSignIn.ts';
import { ANONYMOUS_ACTOR, checkCsrf, countRefusal } from '../plugins/operatorAuth.ts';
import type { SignInThrottle } from '../../services/SignInThrottle.ts';
import { merchantJson } from '../views/merchantJson.ts';
import { adminError, adminRouteOptions } from './adminSchemas.ts';

interface Deps {
  consoleSessions: ConsoleSessionService;
  signInThrottle: SignInThrottle;
  audit: AuditService;
  config: { publicUrl?: string; mode?: Mode };
}

const operatorJson = (o: Operator) => ({ operator_id: o.id, email: o.email, name: o.name, role: o.role });

const errors = { 400: adminError, 401: adminError, 403: adminError, 429: adminError } as const;

/** Operator sign-in, session check and sign-out of the console (docs/operator/console.md). */
export function consoleSessionRoutes(app: FastifyInstance, deps: Deps) {
  const secure = secureCookies(deps.config);
  const OPERATOR_COOKIE = consoleCookieNames(secure).operator;
  const MERCHANT_COOKIE = consoleCookieNames(secure).merchant;
  const mode: Mode = deps.config.mode ?? 'sandbox';
  const audit = (request: FastifyRequest, status: number, actor: string, role: string, action: string, detail = '') =>
    deps.audit
      .record({
        actor: actor.slice(0, 254),
        actorName: '',
        actorRole: role,
        action,
        target: '',
        clientAddress: request.ip,
        outcome: status < 400 ? 'ok' : status === 429 || status === 401 || status === 403 ? 'denied' : 'failed',
        httpStatus: status,
        detail,
      })
      .catch((err: unknown) => request.log.error({ err }, 'audit log write failed'));

  app.post<RouteRequest<'POST /console/api/session'>>(
    '/console/api/session',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['console'],
        summary: 'Operator sign-in: sets an HttpOnly, SameSite=Strict session cookie and answers the CSRF token',
        ...R['POST /console/api/session'],
        response: { ...R['POST /console/api/session'].response, ...errors },
      },
    },
    async (request, reply) => {
      const body = request.body;
      // One spelling for the throttle and the lookup: a variant of the address must not get a fresh counter.
      const email = signInEmail(body.email);
      const { subject, answer } = await consoleSignIn(deps, request, reply, {
        action: 'session.sign_in',
        account: email,
        claimed: { name: email, displayName: '', role: '' },
        verify: () => deps.consoleSessions.signInOperator(email, body.password, request.ip),
        wrong: { why: 'wrong e-mail address or password', message: 'Wrong e-mail address or password' },
        signedIn: (o) => ({ name: o.email, displayName: '', role: o.role }),
        // The operator's rows name the e-mail address and role only; the request's fields are not kept.
        record: (status, who, note) => audit(request, status, who.name, who.role, 'session.sign_in', note),
        cookie: { name: OPERATOR_COOKIE, secure },
      });
      return { operator: operatorJson(subject), ...answer };
    },
  );

  app.get(
    '/console/api/session',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['console'],
        summary: 'The signed-in operator and the CSRF token of the session (401 when signed out or expired)',
        ...R['GET /console/api/session'],
        response: { ...R['GET /console/api/session'].response, ...errors },
      },
    },
    async (request, reply) => {
      const token = readCookie(request, OPERATOR_COOKIE);
      const operator = token ? await deps.consoleSessions.operatorOf(token) : null;
      if (!token || !operator) {
        if (token) clearSessionCookie(reply, OPERATOR_COOKIE, secure);
        throw new AdminError('unauthorized', 'Not signed in');
      }
      return { operator: operatorJson(operator), csrf_token: csrfTokenOf(token), mode };
    },
  );

  app.get(
    '/console/api/whoami',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['console'],
        summary: 'Who this browser is signed in as (operator, merchant or nobody) and the server mode; always 200',
        description:
          'The console asks this when it starts: a signed-out browser is an expected answer, not an error, so it is not a 401 (which browsers log as a failed request).',
        ...R['GET /console/api/whoami'],
        response: { ...R['GET /console/api/whoami'].response, ...errors },
      },
    },
    async (request) => {
      const opToken = readCookie(request, OPERATOR_COOKIE);
      const operator = opToken ? await deps.consoleSessions.operatorOf(opToken) : null;
      if (opToken && operator) {
        return {
          signed_in: true,
          kind: 'operator',
          operator: operatorJson(operator),
          csrf_token: csrfTokenOf(opToken),
          mode,
        };
      }
      const mcToken = readCookie(request, MERCHANT_COOKIE);
      const merchant = mcToken ? await deps.consoleSessions.merchantOf(mcToken) : null;
      if (mcToken && merchant) {
        return {
          signed_in: true,
          kind: 'merchant',
          merchant: merchantJson(merchant),
          csrf_token: csrfTokenOf(mcToken),
          mode,
        };
      }
      return { signed_in: false, mode };
    },
  );

  app.delete(
    '/console/api/session',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['console'],
        summary: 'Sign out: the session is deleted on the server and the cookie cleared (needs X-CSRF-Token)',
        ...R['DELETE /console/api/session'],
        response: { ...R['DELETE /console/api/session'].response, ...errors },
      },
    },
    async (request, reply) => {
      const token = readCookie(request, OPERATOR_COOKIE);
      if (token) {
        const operator = await deps.consoleSessions.operatorOf(token);
        try {
          checkCsrf(request, token, deps.config.publicUrl);
        } catch (err) {
          const detail = request.auditNote ?? '';
          // A signed-in operator's refusal is theirs; a cookie of no live session names nobody: counted.
          if (operator) await audit(request, 403, operator.email, operator.role, 'session.sign_out', detail);
          else
            await countRefusal(deps.audit, request, {
              actor: ANONYMOUS_ACTOR,
              action: 'session.sign_out',
              status: 403,
              detail,
            });
          throw err;
        }
        await deps.consoleSessions.signOut(token);
        if (operator) await audit(request, 204, operator.email, operator.role, 'session.sign_out');
      }
      clearSessionCookie(reply, OPERATOR_COOKIE, secure);
      return reply.code(204).send();
    },
  );
}
