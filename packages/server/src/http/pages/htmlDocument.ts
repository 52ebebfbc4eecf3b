import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { paymentPageCsp } from '../plugins/securityHeaders.ts';
import { escapeHtml } from './html.ts';
import { THEME_CSS } from './theme.ts';

/** A fresh CSP nonce for one answer: only the inline style and script written by us run. */
export const newNonce = (): string => randomBytes(16).toString('base64');

export interface DocumentParts {
  title: string;
  nonce: string;
  /** Trusted HTML (already escaped where it holds data). */
  body: string;
  /** Inline script, run under the nonce. */
  script?: string;
}

/** A whole HTML page in the shared theme; nothing is loaded from elsewhere. */
export function htmlDocument(parts: DocumentParts): string {
  const script = parts.script ? `<script nonce="${parts.nonce}">${parts.script}</script>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(parts.title)}</title>
<style nonce="${parts.nonce}">${THEME_CSS}</style>
</head>
<body>
${parts.body}
${script}
</body>
</html>
`;
}

/**
 * Sends a page with a strict Content-Security-Policy (paymentPageCsp: inline code only under this answer's nonce);
 * never cached (the page shows a live status). Nosniff, X-Frame-Options DENY and no referrer come with every answer
 * (registerSecurityHeaders).
 */
export function sendHtml(reply: FastifyReply, status: number, html: string, nonce: string) {
  return reply
    .code(status)
    .header('content-security-policy', paymentPageCsp(nonce))
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(html);
}
