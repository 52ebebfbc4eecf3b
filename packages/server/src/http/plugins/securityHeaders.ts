import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/** One year: browsers keep to https for that long after any answer of an https deployment. */
const HSTS_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

const policy = (directives: string[]) => directives.join('; ');

/**
 * Every answer that sets no policy of its own is JSON, text or an image: a document that loads nothing and that
 * no page may frame, even if a browser is tricked into rendering one.
 */
const API_POLICY = {
  defaultSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
};

/** The console's page: only this server's own scripts, styles and API; never framed. */
export const CONSOLE_CSP = policy([
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
]);

/**
 * The hosted payment page: nothing from other origins, inline code only under this answer's nonce, requests only
 * to this server, not framable (a payer must never type or confirm anything inside someone else's page).
 */
export const paymentPageCsp = (nonce: string) =>
  policy([
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ]);

/**
 * Swagger UI at /docs: its own bundle and stylesheet from this server (no inline script or style), the OpenAPI
 * document and "try it out" requests to this server, images from here or data: URLs. Never framed, so no other site
 * can overlay it to make someone send a request with a token they pasted.
 */
export const DOCS_CSP = policy([
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
]);

/**
 * Security headers of every answer, through @fastify/helmet: nosniff, no framing (X-Frame-Options DENY and CSP
 * frame-ancestors 'none'), no referrer, same-origin opener and resource policies, and Strict-Transport-Security
 * when the public address is https (an http deployment must not tell browsers to insist on https). HSTS leaves out
 * includeSubDomains and preload: they would bind hosts of the operator's domain that are not Payrail.
 *
 * Answers are never stored by a cache unless their route says otherwise (`Cache-Control: no-store`): admin,
 * console and merchant answers carry balances, keys, tokens and personal data, on every route and under every
 * prefix (the merchant routes are also served under /api), refusals included. Only the console's own files set
 * `no-cache` instead. Registered on the root before any route, so that every route and plugin inherits it.
 */
export async function registerSecurityHeaders(app: FastifyInstance, config: { publicUrl?: string }) {
  const https = config.publicUrl?.startsWith('https:') ?? false;
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: API_POLICY },
    strictTransportSecurity: https ? { maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: false } : false,
    xFrameOptions: { action: 'deny' },
  });
  app.addHook('onSend', async (_request, reply) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });
}
