import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { sendAdminError } from '../AdminError.ts';
import type { PaymentPageService } from '../../services/PaymentPageService.ts';
import { newNonce, sendHtml } from '../views/htmlDocument.ts';
import { PAYMENT_STATUS_LABEL, renderPaymentNotFound, renderPaymentPage } from '../views/paymentPage.ts';

/**
 * The hosted payment page of a collection (`paymentUrl`), keyed by its unguessable page token: the page itself,
 * the status JSON it polls, and in the sandbox the simulate buttons' endpoint (not registered in live mode: 404).
 * No authentication: holding the link is the permission, and the page reveals only what a payer needs.
 */
export function paymentPageRoutes(app: FastifyInstance, deps: { paymentPages: PaymentPageService; sandbox: boolean }) {
  const config = { errorStyle: 'plain' as const };

  app.get<RouteRequest<'GET /pay/:token'>>(
    '/pay/:token',
    {
      config,
      schema: {
        tags: ['payment page'],
        summary: 'Hosted payment page of a collection (HTML): payee, amount, QR, UPI app button, live status',
        ...R['GET /pay/:token'],
      },
    },
    async (request, reply) => {
      const { token } = request.params;
      const nonce = newNonce();
      const view = await deps.paymentPages.view(token);
      if (!view) return sendHtml(reply, 404, renderPaymentNotFound(nonce), nonce);
      const base = `/pay/${encodeURIComponent(token)}`;
      const html = await renderPaymentPage(view, {
        statusUrl: `${base}/status`,
        simulateUrl: `${base}/simulate`,
        nonce,
      });
      return sendHtml(reply, 200, html, nonce);
    },
  );

  app.get<RouteRequest<'GET /pay/:token/status'>>(
    '/pay/:token/status',
    {
      config,
      schema: {
        tags: ['payment page'],
        summary: 'Status of a payment page (polled by the page)',
        ...R['GET /pay/:token/status'],
      },
    },
    async (request, reply) => {
      const { token } = request.params;
      const s = await deps.paymentPages.status(token);
      reply.header('cache-control', 'no-store');
      if (!s) return sendAdminError(reply, 'not_found', 'No payment page at this address');
      return { status: s.status, label: PAYMENT_STATUS_LABEL[s.status], final: s.final };
    },
  );

  if (!deps.sandbox) return;
  app.post<RouteRequest<'POST /pay/:token/simulate'>>(
    '/pay/:token/simulate',
    {
      config,
      schema: {
        tags: ['sandbox'],
        summary: 'The payment page’s sandbox buttons: simulate the payer’s bank (sandbox only)',
        description:
          'JSON body (a cross-site form cannot send one); applies the outcome exactly as POST /sandbox/v1/collections/{txnId}/simulate does.',
        ...R['POST /pay/:token/simulate'],
      },
    },
    async (request) => {
      const { token } = request.params;
      const { outcome } = request.body;
      const s = await deps.paymentPages.simulate(token, outcome);
      return { status: s.status, label: PAYMENT_STATUS_LABEL[s.status], final: s.final };
    },
  );
}
