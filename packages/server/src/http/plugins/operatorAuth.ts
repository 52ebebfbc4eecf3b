import type { FastifyInstance, FastifyRequest } from 'fastify';
import { safeEqual } from '../../domain/credentials.ts';
import { maskAccountNumbers, seesFullAccountNumbers } from '../../domain/accountMasking.ts';
import { ADMIN_TOKEN_ACTOR, roleAllows, type OperatorRole } from '../../domain/Operator.ts';
import type { FailureThrottle } from '../../services/FailureThrottle.ts';
import type { AuditService } from '../../services/AuditService.ts';
import { csrfTokenOf, type ConsoleSessionService } from '../../services/ConsoleSessionService.ts';
import { AdminError } from '../AdminError.ts';
import { consoleCookieNames, readCookie, secureCookies } from '../consoleCookies.ts';
import { requireAdmin } from './adminAuth.ts';

export interface OperatorAuthDeps {
  adminTokenHash: Buffer;
  adminThrottle: FailureThrottle;
  consoleSessions: ConsoleSessionService;
  audit: AuditService;
  config: { publicUrl?: string; adminFailuresPerAddress: number };
}

/** What a throttled console sign-in answers (services/SignInThrottle). */
export const signInThrottled = (retryAfterSeconds: number) =>
  new AdminError('too_many_attempts', 'Too many failed sign-ins; try again in 15 minutes', retryAfterSeconds);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * What the audit log says of a refused request: its method, its route as registered (the pattern, not the path
 * the client sent) and why. Only the server's own words, so that it can key a counted row (AuditService.count).
 */
export const refusalNote = (request: FastifyRequest, why: string) =>
  `refused ${request.method} ${request.routeOptions.url ?? 'unknown route'}: ${why}`;

/** A 403 `csrf_failed`, with what was refused and why noted for the audit entry. */
function csrfRefusal(request: FastifyRequest, why: string, message: string) {
  request.auditNote = refusalNote(request, why);
  return new AdminError('csrf_failed', message);
}

/**
 * Refuses a state-changing cookie request that is not provably from the console itself: it must carry the
 * session's CSRF token, and a browser's Origin / Sec-Fetch-Site, when sent, must be this server's own.
 * (SameSite=Strict already keeps other sites' requests from carrying the cookie; this is the second lock.)
 */
export function checkCsrf(request: FastifyRequest, sessionToken: string, publicUrl: string | undefined) {
  const sent = request.headers['x-csrf-token'];
  if (typeof sent !== 'string' || !safeEqual(sent, csrfTokenOf(sessionToken))) {
    throw csrfRefusal(
      request,
      typeof sent === 'string' ? 'wrong CSRF token' : 'missing CSRF token',
      'A state-changing console request needs the X-CSRF-Token header',
    );
  }
  checkOrigin(request, publicUrl);
}

/** A browser request from another origin is refused (also on sign-in, against login CSRF). */
export function checkOrigin(request: FastifyRequest, publicUrl: string | undefined) {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') {
    throw csrfRefusal(request, 'cross-site (Sec-Fetch-Site)', 'Cross-site console requests are refused');
  }
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return;
  let ok: boolean;
  try {
    const url = new URL(origin);
    ok =
      (publicUrl !== undefined && url.origin === new URL(publicUrl).origin) ||
      (typeof request.headers.host === 'string' && url.host === request.headers.host);
  } catch {
    ok = false;
  }
  if (!ok) throw csrfRefusal(request, 'cross-origin (Origin)', 'Cross-origin console requests are refused');
}

/** The actor of a refusal whose client is not known: a wrong admin token, a request with no live session. */
export const ANONYMOUS_ACTOR = 'anonymous';

/**
 * Counts a refusal of a client that nothing else bounds in its row for this minute (AuditService.count). As with
 * recordAudit, a failed write is logged, not answered: the refusal stands either way.
 */
export async function countRefusal(
  audit: AuditService,
  request: FastifyRequest,
  refusal: { actor: string; actorRole?: string; action: string; status: number; detail: string },
) {
  try {
    await audit.count({
      actor: refusal.actor.slice(0, 254),
      actorName: '',
      actorRole: refusal.actorRole ?? '',
      action: refusal.action,
      target: '',
      clientAddress: request.ip,
      outcome: 'denied',
      httpStatus: refusal.status,
      detail: refusal.detail,
    });
  } catch (err) {
    request.log.error({ err }, 'audit log write failed');
  }
}

/** Reads refused for their role: audited like state changes (other reads are not). */
const refusedReads = new WeakSet<FastifyRequest>();

/**
 * Who may call the admin API: the admin bearer token (automation; acts as `operator:admin-token`, role admin),
 * or an operator's console session cookie with its CSRF header. Then the route's role is enforced, and every
 * state-changing call (refused ones included) is written to the audit log before the answer leaves.
 */
export function registerOperatorAuth(admin: FastifyInstance, deps: OperatorAuthDeps) {
  // A wrong or missing admin token: one counted row per client address and minute, never the token.
  const bearer = requireAdmin(deps.adminTokenHash, deps.adminThrottle, deps.config.adminFailuresPerAddress, (request) =>
    countRefusal(deps.audit, request, {
      actor: ANONYMOUS_ACTOR,
      action: 'admin.auth_failed',
      status: 401,
      detail: 'wrong or missing admin bearer token',
    }),
  );
  const operatorCookie = consoleCookieNames(secureCookies(deps.config)).operator;
  admin.addHook('onRequest', async (request) => {
    const cookie = readCookie(request, operatorCookie);
    if (request.headers.authorization !== undefined || cookie === undefined) {
      await bearer(request);
      request.actor = ADMIN_TOKEN_ACTOR;
    } else {
      const operator = await deps.consoleSessions.operatorOf(cookie);
      if (!operator) throw new AdminError('unauthorized', 'The console session has ended; sign in again');
      request.actor = {
        operatorId: operator.id,
        name: operator.email,
        displayName: operator.name,
        role: operator.role,
        via: 'session',
      };
      if (!SAFE_METHODS.has(request.method)) checkCsrf(request, cookie, deps.config.publicUrl);
    }
    const needed: OperatorRole =
      request.routeOptions.config.role ?? (SAFE_METHODS.has(request.method) ? 'viewer' : 'admin');
    if (!roleAllows(request.actor.role, needed)) {
      request.auditNote = refusalNote(request, `needs the ${needed} role; the actor has ${request.actor.role}`);
      if (SAFE_METHODS.has(request.method)) refusedReads.add(request);
      throw new AdminError('forbidden', `This action needs the ${needed} role; you are ${request.actor.role}`);
    }
  });

  // Account numbers by role (domain/accountMasking.ts): a viewer reads them masked to their last four digits, in
  // every JSON answer of the admin API, before it is serialized.
  admin.addHook('preSerialization', async (request, _reply, payload) =>
    request.actor && !seesFullAccountNumbers(request.actor.role) ? maskAccountNumbers(payload) : payload,
  );

  admin.addHook('onSend', async (request, reply, payload) => {
    if ((SAFE_METHODS.has(request.method) && !refusedReads.has(request)) || request.actor === null) return payload;
    await recordAudit(deps.audit, request, reply.statusCode);
    return payload;
  });
}

/** Body fields worth keeping in the audit log; secrets and passwords never are. */
const AUDITED_FIELDS = [
  'amount',
  'reference',
  'status',
  'utr_number',
  'role',
  'email',
  'name',
  'disabled',
  'daily_limit',
  'monthly_limit',
  'collection_callback_url',
  'upi_vpa',
  'upi_payee_name',
  'beneficiary_verification',
  'min_name_match_score',
  'default_scheme',
  'legal_name',
  'gstin',
  'billing_state',
  'month',
  'merchant_id',
  'since',
];

export async function recordAudit(
  audit: AuditService,
  request: FastifyRequest,
  status: number,
  who: { name: string; displayName: string; role: string } | null = request.actor,
) {
  const actor = who;
  if (!actor) return;
  const body = (request.body ?? {}) as Record<string, unknown>;
  const kept =
    typeof body === 'object' && body !== null
      ? Object.fromEntries(AUDITED_FIELDS.filter((f) => f in body).map((f) => [f, body[f]]))
      : {};
  const params = Object.values((request.params ?? {}) as Record<string, string>).join(' ');
  const detail = [Object.keys(kept).length ? JSON.stringify(kept) : '', request.auditNote ?? '']
    .filter(Boolean)
    .join(' ')
    .slice(0, 1000);
  try {
    await audit.record({
      actor: actor.name,
      actorName: actor.displayName,
      actorRole: actor.role,
      action: request.routeOptions.config.audit ?? `${request.method} ${request.routeOptions.url ?? request.url}`,
      target: params.slice(0, 300),
      clientAddress: request.ip,
      outcome: status < 400 ? 'ok' : status === 401 || status === 403 ? 'denied' : 'failed',
      httpStatus: status,
      detail,
    });
  } catch (err) {
    // The action itself has happened; a lost audit line is an operational error to see, not a reason to lie.
    request.log.error({ err }, 'audit log write failed');
  }
}
