import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import htm from 'htm';
import { h, type ComponentChildren, type VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { paymentPageCsp } from '../plugins/securityHeaders.ts';
import { THEME_CSS } from './theme.ts';

/**
 * Server pages are preact elements written with htm and rendered to a string: every text and attribute value is
 * escaped by the renderer, so a payee name or remark can never become markup. Only what is marked
 * `dangerouslySetInnerHTML` (our own CSS, script and the QR code's SVG) is written as it is.
 */
export const html = htm.bind(h);

/** A fresh CSP nonce for one answer: only the inline style and script written by us run. */
export const newNonce = (): string => randomBytes(16).toString('base64');

export interface DocumentParts {
  title: string;
  nonce: string;
  /** Page-specific CSS on top of the theme, run under the nonce. */
  css?: string;
  body: ComponentChildren;
  /** Inline script, run under the nonce. */
  script?: string;
}

/** A whole HTML page in the shared theme; nothing is loaded from elsewhere. */
export function htmlDocument(parts: DocumentParts): string {
  const page = html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex, nofollow" />
      <meta name="referrer" content="no-referrer" />
      <link rel="icon" href="data:," />
      <title>${parts.title}</title>
      <style nonce=${parts.nonce} dangerouslySetInnerHTML=${{ __html: THEME_CSS + (parts.css ?? '') }}></style>
    </head>
    <body>
      ${parts.body}
      ${
        parts.script
          ? html`<script nonce=${parts.nonce} dangerouslySetInnerHTML=${{ __html: parts.script }}></script>`
          : null
      }
    </body>
  </html>`;
  // One root element: htm's type allows several, this template has one.
  return `<!doctype html>\n${renderToString(page as VNode)}\n`;
}

/**
 * Sends a page with a strict Content-Security-Policy (paymentPageCsp: inline code only under this answer's nonce);
 * never cached (the page shows a live status). Nosniff, X-Frame-Options DENY and no referrer come with every answer
 * (registerSecurityHeaders).
 */
export function sendHtml(reply: FastifyReply, status: number, page: string, nonce: string) {
  return reply
    .code(status)
    .header('content-security-policy', paymentPageCsp(nonce))
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page);
}
