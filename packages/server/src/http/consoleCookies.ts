import type { FastifyReply, FastifyRequest } from 'fastify';

/** Cookie of an operator's console session, and of a merchant's. */
export const OPERATOR_COOKIE = 'payrail_op';
export const MERCHANT_COOKIE = 'payrail_mc';

/** The value of one cookie of the request, or undefined. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      // Session values are base64url: anything else is not one of ours.
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Secure behind https, expiring. */
export function setSessionCookie(reply: FastifyReply, name: string, value: string, expiresAt: Date, secure: boolean) {
  const maxAge = Math.max(0, Math.round((expiresAt.getTime() - Date.now()) / 1000));
  const attributes = [
    `${name}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAge}`,
    `Expires=${expiresAt.toUTCString()}`,
    ...(secure ? ['Secure'] : []),
  ];
  reply.header('set-cookie', attributes.join('; '));
}

export function clearSessionCookie(reply: FastifyReply, name: string, secure: boolean) {
  reply.header(
    'set-cookie',
    [`${name}=`, 'Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=0', ...(secure ? ['Secure'] : [])].join('; '),
  );
}
