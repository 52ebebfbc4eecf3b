import { formatPaise, isId, ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Mode } from '../../config.ts';
import QRCode from 'qrcode';
import type { Merchant } from '../../domain/Merchant.ts';
import { auditedApiKey, signInApiKey } from '../../domain/signInIdentity.ts';
import type { AuditService } from '../../services/AuditService.ts';
import type { BulkPayoutService } from '../../services/BulkPayoutService.ts';
import type { CollectionReads } from '../../services/CollectionReads.ts';
import { csrfTokenOf, type ConsoleSessionService } from '../../services/ConsoleSessionService.ts';
import type { MerchantCollectionService } from '../../services/MerchantCollectionService.ts';
import type { MerchantScope } from '../../services/MerchantScope.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import type { PayoutAdminService } from '../../services/PayoutAdminService.ts';
import type { StatsService } from '../../services/StatsService.ts';
import type { WalletStatementService } from '../../services/WalletStatementService.ts';
import type { WebhookAdminService } from '../../services/WebhookAdminService.ts';
import { AdminError } from '../AdminError.ts';
import { answerStatement } from '../answerStatement.ts';
import { clearSessionCookie, consoleCookieNames, readCookie, secureCookies } from '../consoleCookies.ts';
import { consoleSignIn } from '../consoleSignIn.ts';
import { readBatches } from '../reads/batches.ts';
import { readCollections } from '../reads/collections.ts';
import { readDeliveries } from '../reads/deliveries.ts';
import { readPayouts } from '../reads/payouts.ts';
import { checkCsrf, recordAudit } from '../plugins/operatorAuth.ts';
import type { SignInThrottle } from '../../services/SignInThrottle.ts';
import { merchantJson } from '../views/merchantJson.ts';
import { statsView } from '../views/statsView.ts';
import { adminError, adminRouteOptions } from './adminSchemas.ts';

interface Deps {
  consoleSessions: ConsoleSessionService;
  signInThrottle: SignInThrottle;
  audit: AuditService;
  merchants: MerchantService;
  payoutAdmin: PayoutAdminService;
  collections: CollectionReads;
  merchantCollections: MerchantCollectionService;
  bulkPayouts: BulkPayoutService;
  statements: WalletStatementService;
  webhookAdmin: WebhookAdminService;
  stats: StatsService;
  config: { publicUrl?: string; mode?: Mode };
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);
const errors = { 400: adminError, 401: adminError, 403: adminError, 404: adminError, 429: adminError } as const;
const tags = ['merchant console'];

const merchantOf = (request: FastifyRequest) => request.consoleMerchant as Merchant;
/** What the signed-in merchant may read: its own rows only (the services answer null for another's). */
const scopeOf = (request: FastifyRequest): MerchantScope => ({ merchantId: merchantOf(request).id });

/**
 * The merchant side of the console: a merchant signs in with its API key and secret key and gets a session
 * cookie of its own (`payrail_mc`, `__Host-payrail_mc` behind https), which opens only these routes and only that
 * merchant's data. Another merchant's wallet, payout or delivery answers 404, as if it did not exist.
 */
export function consoleMerchantRoutes(app: FastifyInstance, deps: Deps) {
  const secure = secureCookies(deps.config);
  const MERCHANT_COOKIE = consoleCookieNames(secure).merchant;
  const who = (m: Merchant) => ({ name: `merchant:${m.id}`, displayName: m.name, role: 'merchant' });

  app.post<RouteRequest<'POST /console/api/merchant/session'>>(
    '/console/api/merchant/session',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, audit: 'merchant.sign_in' },
      schema: {
        tags,
        summary: 'Merchant sign-in with API key and secret key: a session cookie limited to that merchant',
        ...R['POST /console/api/merchant/session'],
        response: { ...R['POST /console/api/merchant/session'].response, ...errors },
      },
    },
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
        signedIn: who,
        // Written as every merchant console action is (the route's audit action, its kept fields and its note).
        record: (status, actor, note) => {
          if (note !== undefined) request.auditNote = note;
          return recordAudit(deps.audit, request, status, actor);
        },
        cookie: { name: MERCHANT_COOKIE, secure },
      });
      return { merchant: merchantJson(subject), ...answer };
    },
  );

  app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => {
      const token = readCookie(request, MERCHANT_COOKIE);
      const merchant = token ? await deps.consoleSessions.merchantOf(token) : null;
      if (!token || !merchant) throw new AdminError('unauthorized', 'Not signed in as a merchant');
      // Known before the CSRF check, so that a refusal of it is audited under the merchant (onSend).
      request.consoleMerchant = merchant;
      if (!SAFE_METHODS.has(request.method)) checkCsrf(request, token, deps.config.publicUrl);
    });
    scope.addHook('onSend', async (request, reply, payload) => {
      if (!SAFE_METHODS.has(request.method) && request.consoleMerchant) {
        await recordAudit(deps.audit, request, reply.statusCode, who(request.consoleMerchant));
      }
      return payload;
    });
    routes(scope);
  });

  function routes(scope: FastifyInstance) {
    const payouts = readPayouts(deps);
    const collections = readCollections(deps);
    const batches = readBatches(deps);
    const deliveries = readDeliveries(deps);
    scope.get(
      '/console/api/merchant/session',
      {
        ...adminRouteOptions,
        schema: {
          tags,
          summary: 'The signed-in merchant and the CSRF token',
          ...R['GET /console/api/merchant/session'],
          response: { ...R['GET /console/api/merchant/session'].response, ...errors },
        },
      },
      async (request) => {
        const token = readCookie(request, MERCHANT_COOKIE) as string;
        return {
          merchant: merchantJson(merchantOf(request)),
          csrf_token: csrfTokenOf(token),
          mode: deps.config.mode ?? 'sandbox',
        };
      },
    );

    scope.delete(
      '/console/api/merchant/session',
      {
        ...adminRouteOptions,
        config: { ...adminRouteOptions.config, audit: 'merchant.sign_out' },
        schema: {
          tags,
          summary: 'Merchant sign-out (needs X-CSRF-Token)',
          ...R['DELETE /console/api/merchant/session'],
          response: { ...R['DELETE /console/api/merchant/session'].response, ...errors },
        },
      },
      async (request, reply) => {
        await deps.consoleSessions.signOut(readCookie(request, MERCHANT_COOKIE) as string);
        clearSessionCookie(reply, MERCHANT_COOKIE, secure);
        return reply.code(204).send();
      },
    );

    scope.get(
      '/console/api/merchant/overview',
      {
        ...adminRouteOptions,
        schema: {
          tags,
          summary: "The merchant's wallets with balance and money on hold, and its last 24 hours of payouts",
          ...R['GET /console/api/merchant/overview'],
          response: { ...R['GET /console/api/merchant/overview'].response, ...errors },
        },
      },
      async (request) => {
        const m = merchantOf(request);
        const wallets = await deps.merchants.wallets(m.id);
        const held = await Promise.all(wallets.map((w) => deps.merchants.onHold(w.id)));
        return {
          merchant: merchantJson(m),
          wallets: wallets.map((w, i) => ({
            wallet_id: w.id,
            balance: formatPaise(w.balance),
            on_hold: formatPaise(held[i] as bigint),
            currency: 'INR',
          })),
          stats: statsView(await deps.stats.stats(scopeOf(request))),
        };
      },
    );

    scope.get<RouteRequest<'GET /console/api/merchant/wallets/:wallet_id/statement'>>(
      '/console/api/merchant/wallets/:wallet_id/statement',
      {
        ...adminRouteOptions,
        schema: {
          tags,
          summary: "Statement of one of the merchant's wallets (format=json or csv)",
          ...R['GET /console/api/merchant/wallets/:wallet_id/statement'],
          response: { ...R['GET /console/api/merchant/wallets/:wallet_id/statement'].response, ...errors },
        },
      },
      async (request, reply) => {
        const { wallet_id } = request.params;
        return answerStatement(reply, deps.statements, wallet_id, request.query, scopeOf(request));
      },
    );

    scope.get<RouteRequest<'GET /console/api/merchant/payouts'>>(
      '/console/api/merchant/payouts',
      {
        ...adminRouteOptions,
        schema: {
          tags,
          summary: "The merchant's payouts, newest first",
          ...R['GET /console/api/merchant/payouts'],
          response: { ...R['GET /console/api/merchant/payouts'].response, ...errors },
        },
      },
      async (request) => payouts.list(request.query, scopeOf(request)),
    );

    scope.get<RouteRequest<'GET /console/api/merchant/payouts/:transaction_id'>>(
      '/console/api/merchant/payouts/:transaction_id',
      {
        ...adminRouteOptions,
        schema: {
          tags,
          summary: 'One of the merchant’s payouts',
          ...R['GET /console/api/merchant/payouts/:transaction_id'],
          response: { ...R['GET /console/api/merchant/payouts/:transaction_id'].response, ...errors },
        },
      },
      async (request) => payouts.get(request.params.transaction_id, scopeOf(request)),
    );

    scope.get<RouteRequest<'GET /console/api/merchant/payouts/:transaction_id/timeline'>>(
      '/console/api/merchant/payouts/:transaction_id/timeline',
      {
        ...adminRouteOptions,
        schema: {
          tags,
          summary: 'History of one of the merchant’s payouts, with its webhook deliveries (404 for another’s)',
          ...R['GET /console/api/merchant/payouts/:transaction_id/timeline'],
          response: { ...R['GET /console/api/merchant/payouts/:transaction_id/timeline'].response, ...errors },
        },
      },
      async (request) => payouts.timeline(request.params.transaction_id, scopeOf(request)),
    );

    scope.get<RouteRequest<'GET /console/api/merchant/collections'>>(
      '/console/api/merchant/collections',
      {
        ...adminRouteOptions,
        schema: {
          tags,
          summary: "The merchant's collections, newest first",
          ...R['GET /console/api/merchant/collections'],
          response: { ...R['GET /console/api/merchant/collections'].response, ...errors },
        },
      },
      async (request) => collections.list(request.query, scopeOf(request)),
    );

    scope.get<RouteRequest<'GET /console/api/merchant/collections/:txnId'>>(
      '/console/api/merchant/collections/:txnId',
      {
        ...adminRouteOptions,
        schema: {
          tags,
          summary: 'One of the merchant’s collections (404 for another merchant’s or none)',
          ...R['GET /console/api/merchant/collections/:txnId'],
          response: { ...R['GET /console/api/merchant/collections/:txnId'].response, ...errors },
        },
      },
      async (request) => collections.get(request.params.txnId, scopeOf(request)),
    );

    scope.get<RouteRequest<'GET /console/api/merchant/collections/:txnId/qr'>>(
      '/console/api/merchant/collections/:txnId/qr',
      {
        ...adminRouteOptions,
        schema: {
          tags,
          summary: 'QR code (SVG) of one of the merchant’s collections: its UPI intent link',
          ...R['GET /console/api/merchant/collections/:txnId/qr'],
          response: { ...R['GET /console/api/merchant/collections/:txnId/qr'].response, ...errors },
        },
      },
      async (request, reply) => {
        const { txnId } = request.params;
        const url = isId('collection', txnId)
          ? await deps.merchantCollections.intentUrlOf(merchantOf(request), txnId)
          : null;
        if (!url) throw AdminError.notFound('collection');
        // Private: the image carries the payee and amount of one merchant's collection.
        reply.header('cache-control', 'private, no-store').type('image/svg+xml');
        return reply.send(await QRCode.toString(url, { type: 'svg', margin: 2 }));
      },
    );

    scope.get<RouteRequest<'GET /console/api/merchant/batches'>>(
      '/console/api/merchant/batches',
      {
        ...adminRouteOptions,
        schema: {
          tags,
          summary: "The merchant's bulk payout batches, newest first",
          ...R['GET /console/api/merchant/batches'],
          response: { ...R['GET /console/api/merchant/batches'].response, ...errors },
        },
      },
      async (request) => batches.list(request.query, scopeOf(request)),
    );

    scope.get<RouteRequest<'GET /console/api/merchant/batches/:batch_id'>>(
      '/console/api/merchant/batches/:batch_id',
      {
        ...adminRouteOptions,
        schema: {
          tags,
          summary: 'One of the merchant’s batches with its summary by status and every item',
          ...R['GET /console/api/merchant/batches/:batch_id'],
          response: { ...R['GET /console/api/merchant/batches/:batch_id'].response, ...errors },
        },
      },
      // Looked up under the signed-in merchant only: another merchant's batch id is simply not there.
      async (request) => batches.get(request.params.batch_id, scopeOf(request)),
    );

    scope.get<RouteRequest<'GET /console/api/merchant/webhooks/deliveries'>>(
      '/console/api/merchant/webhooks/deliveries',
      {
        ...adminRouteOptions,
        schema: {
          tags,
          summary: "The merchant's webhook deliveries with every attempt, newest first",
          ...R['GET /console/api/merchant/webhooks/deliveries'],
          response: { ...R['GET /console/api/merchant/webhooks/deliveries'].response, ...errors },
        },
      },
      async (request) => deliveries.list(request.query, scopeOf(request)),
    );

    scope.post(
      '/console/api/merchant/webhook-secret/rotate',
      {
        ...adminRouteOptions,
        config: { ...adminRouteOptions.config, audit: 'merchant.webhook_secret.rotate' },
        schema: {
          tags,
          summary: 'A new webhook secret, shown once; for 24 h deliveries are signed with both (needs X-CSRF-Token)',
          ...R['POST /console/api/merchant/webhook-secret/rotate'],
          response: { ...R['POST /console/api/merchant/webhook-secret/rotate'].response, ...errors },
        },
      },
      async (request) => {
        const rotated = await deps.merchants.rotateWebhookSecret(merchantOf(request).id);
        if (!rotated) throw AdminError.notFound('merchant');
        return {
          merchant_id: rotated.merchantId,
          webhook_secret: rotated.webhookSecret,
          previous_secret_expires_at: rotated.previousSecretExpiresAt.toISOString(),
        };
      },
    );

    scope.post<RouteRequest<'POST /console/api/merchant/webhooks/deliveries/:id/replay'>>(
      '/console/api/merchant/webhooks/deliveries/:id/replay',
      {
        ...adminRouteOptions,
        config: { ...adminRouteOptions.config, audit: 'merchant.webhook.resend' },
        schema: {
          tags,
          summary: 'Send one of the merchant’s deliveries again (needs X-CSRF-Token)',
          ...R['POST /console/api/merchant/webhooks/deliveries/:id/replay'],
          response: { ...R['POST /console/api/merchant/webhooks/deliveries/:id/replay'].response, ...errors },
        },
      },
      async (request, reply: FastifyReply) =>
        reply.code(202).send(await deliveries.replay(request.params.id, scopeOf(request))),
    );
  }
}
