import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Mode } from '../config.ts';
import type { AuditService } from '../services/AuditService.ts';
import type { OpenedSession } from '../services/ConsoleSessionService.ts';
import type { SignInThrottle } from '../services/SignInThrottle.ts';
import { AdminError } from './AdminError.ts';
import { setSessionCookie } from './consoleCookies.ts';
import { checkOrigin, countRefusal, refusalNote } from './plugins/operatorAuth.ts';

/** Who an audit row of a sign-in names. */
export interface SignInActor {
  name: string;
  displayName: string;
  role: string;
}

/** What differs between the operator's and the merchant's sign-in; the flow itself is one (consoleSignIn). */
export interface SignInKind<T> {
  /** The audit action of every row this sign-in writes. */
  action: string;
  /** The identity as the throttle counts it and the lookup finds it (domain/signInIdentity). */
  account: string;
  /** Who a refused attempt is recorded as: never the secret, and only what the client claimed. */
  claimed: SignInActor;
  /** The credentials check: a session, or null for wrong credentials (without saying which part was wrong). */
  verify: () => Promise<OpenedSession<T> | null>;
  /** Wrong credentials: why, in the audit log, and the answer's message. */
  wrong: { why: string; message: string };
  /** Who a successful sign-in is recorded as. */
  signedIn: (subject: T) => SignInActor;
  /**
   * Writes one audit row of an attempt that the throttle bounds (each console keeps the shape of its rows);
   * `note` says why it was refused.
   */
  record: (status: number, who: SignInActor, note?: string) => Promise<unknown>;
  /** The session cookie this sign-in sets. */
  cookie: { name: string; secure: boolean };
}

export interface ConsoleSignInDeps {
  signInThrottle: SignInThrottle;
  audit: AuditService;
  config: { publicUrl?: string; mode?: Mode };
}

/**
 * The console's sign-in, for operators and merchants alike: the origin check (against login CSRF), the throttle
 * around the credentials check, one audit row per attempt, and on success the session cookie. Refusals that come
 * before the throttle (cross-origin) or from it (429) are not bounded by it, so they are counted rather than
 * written one row each. Answers the session's CSRF token, expiry and the server mode; the caller adds its subject.
 */
export async function consoleSignIn<T>(
  deps: ConsoleSignInDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: SignInKind<T>,
) {
  const counted = (status: number, detail: string) =>
    countRefusal(deps.audit, request, {
      actor: kind.claimed.name,
      actorRole: kind.claimed.role,
      action: kind.action,
      status,
      detail,
    });
  try {
    checkOrigin(request, deps.config.publicUrl);
  } catch (err) {
    await counted(403, request.auditNote ?? '');
    throw err;
  }
  let opened;
  try {
    opened = await deps.signInThrottle.attempt(kind.account, request.ip, kind.verify);
  } catch (err) {
    const status = err instanceof AdminError ? err.status : 500;
    if (status === 429) await counted(429, refusalNote(request, 'too many failed sign-ins'));
    else await kind.record(status, kind.claimed);
    throw err;
  }
  if (!opened) {
    // One row each: the throttle bounds how many there can be.
    await kind.record(401, kind.claimed, refusalNote(request, kind.wrong.why));
    throw new AdminError('invalid_credentials', kind.wrong.message);
  }
  setSessionCookie(reply, kind.cookie.name, opened.token, opened.expiresAt, kind.cookie.secure, opened.openedAt);
  await kind.record(200, kind.signedIn(opened.subject));
  return {
    subject: opened.subject,
    answer: {
      csrf_token: opened.csrfToken,
      expires_at: opened.expiresAt.toISOString(),
      mode: deps.config.mode ?? 'sandbox',
    },
  };
}
