import type { FastifyInstance } from 'fastify';
import type { Mode } from '../../config.ts';
import type { AuditService } from '../../services/AuditService.ts';
import type { BulkPayoutService } from '../../services/BulkPayoutService.ts';
import type { CollectionReads } from '../../services/CollectionReads.ts';
import type { LienService } from '../../services/LienService.ts';
import type { DepositService } from '../../services/DepositService.ts';
import type { InvoiceService } from '../../services/InvoiceService.ts';
import type { ConsoleSessionService } from '../../services/ConsoleSessionService.ts';
import type { MerchantCollectionService } from '../../services/MerchantCollectionService.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import type { PayoutAdminService } from '../../services/PayoutAdminService.ts';
import type { SettlementService } from '../../services/SettlementService.ts';
import type { SignInThrottle } from '../../services/SignInThrottle.ts';
import type { StatsService } from '../../services/StatsService.ts';
import type { WalletStatementService } from '../../services/WalletStatementService.ts';
import type { WebhookAdminService } from '../../services/WebhookAdminService.ts';
import { AdminError } from '../AdminError.ts';
import { consoleCookieNames, readCookie, secureCookies } from '../consoleCookies.ts';
import { checkCsrf, recordAudit } from '../plugins/operatorAuth.ts';
import { consoleMerchantBatchRoutes } from './consoleMerchantBatchRoutes.ts';
import { consoleMerchantCollectionRoutes } from './consoleMerchantCollectionRoutes.ts';
import { consoleMerchantInvoiceRoutes } from './consoleMerchantInvoiceRoutes.ts';
import { auditedMerchant } from './consoleMerchantOptions.ts';
import { consoleMerchantPayoutRoutes } from './consoleMerchantPayoutRoutes.ts';
import { consoleMerchantSessionRoutes, consoleMerchantSignInRoute } from './consoleMerchantSessionRoutes.ts';
import { consoleMerchantSettlementRoutes } from './consoleMerchantSettlementRoutes.ts';
import { consoleMerchantWalletRoutes } from './consoleMerchantWalletRoutes.ts';
import { consoleMerchantWebhookRoutes } from './consoleMerchantWebhookRoutes.ts';

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
  invoices: InvoiceService;
  deposits: DepositService;
  liens: LienService;
  settlements: SettlementService;
  config: { publicUrl?: string; mode?: Mode };
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * The merchant side of the console: a merchant signs in with its API key and secret key and gets a session
 * cookie of its own (`payrail_mc`, `__Host-payrail_mc` behind https), which opens only these routes and only that
 * merchant's data. Another merchant's wallet, payout or delivery answers 404, as if it did not exist. The routes
 * are one file per resource (consoleMerchant*Routes.ts); this one signs the merchant in and guards the rest.
 */
export function consoleMerchantRoutes(app: FastifyInstance, deps: Deps) {
  const secure = secureCookies(deps.config);
  const cookie = { name: consoleCookieNames(secure).merchant, secure };

  consoleMerchantSignInRoute(app, deps, cookie);

  app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => {
      const token = readCookie(request, cookie.name);
      const merchant = token ? await deps.consoleSessions.merchantOf(token) : null;
      if (!token || !merchant) throw new AdminError('unauthorized', 'Not signed in as a merchant');
      // Known before the CSRF check, so that a refusal of it is audited under the merchant (onSend).
      request.consoleMerchant = merchant;
      if (!SAFE_METHODS.has(request.method)) checkCsrf(request, token, deps.config.publicUrl);
    });
    scope.addHook('onSend', async (request, reply, payload) => {
      if (!SAFE_METHODS.has(request.method) && request.consoleMerchant) {
        await recordAudit(deps.audit, request, reply.statusCode, auditedMerchant(request.consoleMerchant));
      }
      return payload;
    });
    consoleMerchantSessionRoutes(scope, deps, cookie);
    consoleMerchantWalletRoutes(scope, deps);
    consoleMerchantPayoutRoutes(scope, deps);
    consoleMerchantCollectionRoutes(scope, deps);
    consoleMerchantBatchRoutes(scope, deps);
    consoleMerchantWebhookRoutes(scope, deps);
    consoleMerchantInvoiceRoutes(scope, deps);
    consoleMerchantSettlementRoutes(scope, deps);
  });
}
