import type { FastifyReply, FastifyRequest } from 'fastify';

/** Whether cookies get the Secure attribute: when the public address is https. */
export const secureCookies = (config: { publicUrl?: string }) => config.publicUrl?.startsWith('https:') ?? false;

/**
 * The cookies of an operator's console session and of a merchant's. With Secure (https) they carry the `__Host-`
 * prefix: a browser then keeps them only if set by this very host with Secure, Path=/ and no Domain, so neither a
 * sibling subdomain nor an http answer forged on the network can plant or overwrite a session (session fixation,
 * cookie tossing). Over plain http a browser refuses `__Host-` cookies, hence the plain names there.
 */
export function consoleCookieNames(secure: boolean): { operator: string; merchant: string } {
  const prefix = secure ? '__Host-' : '';
  return { operator: `${prefix}payrail_op`, merchant: `${prefix}payrail_mc` };
}

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

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Secure behind https, expiring.
 * `openedAt`: when the session was opened (the server's clock), where Max-Age counts from.
 */
export function setSessionCookie(
  reply: FastifyReply,
  name: string,
  value: string,
  expiresAt: Date,
  secure: boolean,
  openedAt: Date,
) {
  const maxAge = Math.max(0, Math.round((expiresAt.getTime() - openedAt.getTime()) / 1000));
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
