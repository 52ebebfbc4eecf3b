import * as A from './admin/index.ts';
import { adminError, noContent, textBody } from './common.ts';
import * as C from './console.ts';
import * as X from './exceptions.ts';
import * as M from './merchant.ts';
import * as O from './ops.ts';

/**
 * Every route of the server with its request schemas (params, querystring, body, headers where it takes them)
 * and its success answers, keyed `METHOD /path` as Fastify registers it. The server's routes take their schemas
 * from here, and a drift test fails when a registered route has no entry or a different schema.
 */
export interface RouteSchemas {
  readonly params?: object;
  readonly querystring?: object;
  readonly body?: object;
  readonly headers?: object;
  /** The success statuses (2xx; 3xx for a redirect) the route answers, with their schemas. */
  readonly response: Readonly<Record<number, object>>;
}

const merchant = {
  'POST /v1/auth/client-token': { body: M.tokenV2Body, response: { 200: M.tokenAnswer } },
  'POST /v1/auth/clients/token': {
    headers: M.tokenV1Headers,
    body: M.tokenV1Body,
    response: { 200: M.tokenAnswer },
  },
  'POST /payout/v1/initiate': {
    body: M.encryptedBody,
    response: { 200: M.payoutEnvelope('2000: initiated; data = PayoutTransaction') },
  },
  'GET /payout/v1/status': {
    querystring: M.payoutStatusQuery,
    response: { 200: M.payoutEnvelope('2000; data = PayoutTransaction') },
  },
  'GET /payout/v1/balance': {
    querystring: M.balanceQuery,
    response: { 200: M.payoutEnvelope('2000; data = Balance') },
  },
  'POST /payout/v1/bulk': {
    body: M.encryptedBody,
    response: { 200: M.payoutEnvelope('2000: processed (or checked, with dry_run); data = BulkPayoutResult') },
  },
  'GET /payout/v1/bulk/status': {
    querystring: M.bulkStatusQuery,
    response: { 200: M.payoutEnvelope('2000; data = BulkPayoutStatus') },
  },
  'POST /payout/v1/beneficiary/verify': {
    body: M.encryptedBody,
    response: {
      200: M.payoutEnvelope('2000: verified (the account may still be INVALID); data = BeneficiaryVerification'),
    },
  },
  'POST /collection/v1/initiate': {
    body: M.encryptedBody,
    response: { 200: M.collectionEnvelope('2000; data = CollectionTransaction + intentUrl') },
  },
  'GET /collection/v1/status': {
    querystring: M.collectionStatusQuery,
    response: { 200: M.collectionEnvelope('2000; data = CollectionTransaction') },
  },
  'POST /collection/v1/status': {
    body: M.encryptedBody,
    response: { 200: M.collectionEnvelope('2000; data = CollectionTransaction') },
  },
  'GET /collection/v1/qr': {
    querystring: M.collectionQrQuery,
    response: { 200: textBody('image/svg+xml or image/png') },
  },
  'POST /sandbox/v1/collections/:txnId/simulate': {
    params: M.sandboxSimulateParams,
    body: M.sandboxSimulateBody,
    response: { 200: M.collectionEnvelope('2000; data = CollectionTransaction') },
  },
  'POST /settlement/v1/initiate': {
    body: M.encryptedBody,
    response: { 200: M.payoutEnvelope('2000: initiated; data = Settlement') },
  },
  'GET /settlement/v1/status': {
    querystring: M.settlementStatusQuery,
    response: { 200: M.payoutEnvelope('2000; data = Settlement') },
  },
  'GET /settlement/v1/history': {
    querystring: M.settlementHistoryQuery,
    response: { 200: M.payoutEnvelope('2000; data = SettlementHistory') },
  },
} as const satisfies Record<M.MerchantRouteKey, RouteSchemas>;

const admin = {
  'POST /admin/v1/merchants': { body: A.merchantCreateBody, response: { 201: A.merchantCreated } },
  'GET /admin/v1/merchants': { querystring: A.merchantListQuery, response: { 200: A.merchantPage } },
  'GET /admin/v1/merchants/:merchant_id': { params: A.merchantIdParam, response: { 200: A.merchantView } },
  'PATCH /admin/v1/merchants/:merchant_id': {
    params: A.merchantIdParam,
    body: A.merchantPatchBody,
    response: { 200: A.merchantView },
  },
  'PUT /admin/v1/merchants/:merchant_id/pricing': {
    params: A.pricingParams,
    body: A.pricingPlanBody,
    response: { 200: A.pricingPlanView },
  },
  'GET /admin/v1/merchants/:merchant_id/pricing': { params: A.pricingParams, response: { 200: A.pricingPlanView } },
  'PUT /admin/v1/merchants/:merchant_id/allowed-remitters': {
    params: A.merchantIdParam,
    body: A.allowedRemittersBody,
    response: { 200: A.allowedRemittersView },
  },
  'GET /admin/v1/merchants/:merchant_id/allowed-remitters': {
    params: A.merchantIdParam,
    response: { 200: A.allowedRemittersView },
  },
  'POST /admin/v1/sandbox/deposits': {
    body: A.sandboxDepositBody,
    response: { 200: A.depositView, 202: X.exceptionView },
  },
  'GET /admin/v1/wallets/:wallet_id/deposits': {
    params: A.walletIdParam,
    querystring: A.depositPageQuery,
    response: { 200: A.depositPage },
  },
  'POST /admin/v1/merchants/:merchant_id/wallets': {
    params: A.merchantIdParam,
    response: { 201: A.walletCreated },
  },
  'POST /admin/v1/merchants/:merchant_id/credentials/rotate': {
    params: A.merchantIdParam,
    response: { 200: A.credentialsRotated },
  },
  'POST /admin/v1/merchants/:merchant_id/webhook-secret/rotate': {
    params: A.merchantIdParam,
    response: { 200: A.webhookSecretRotated },
  },
  'POST /admin/v1/wallets/:wallet_id/credits': {
    params: A.walletIdParam,
    body: A.walletCreditBody,
    response: { 200: A.walletCredited, 202: A.creditRequestView },
  },
  'GET /admin/v1/wallets/:wallet_id': { params: A.walletIdParam, response: { 200: A.walletView } },
  'POST /admin/v1/wallets/:wallet_id/liens': {
    params: A.walletIdParam,
    body: A.lienPlaceBody,
    response: { 201: A.lienView, 202: A.lienView },
  },
  'GET /admin/v1/wallets/:wallet_id/liens': { params: A.walletIdParam, response: { 200: A.lienList } },
  'GET /admin/v1/liens/:lien_id': { params: A.lienIdParam, response: { 200: A.lienView } },
  'POST /admin/v1/liens/:lien_id/release': {
    params: A.lienIdParam,
    body: A.lienActionBody,
    response: { 200: A.lienView },
  },
  'POST /admin/v1/liens/:lien_id/enforce': {
    params: A.lienIdParam,
    body: A.lienActionBody,
    response: { 200: A.lienView, 202: A.lienView },
  },
  'POST /admin/v1/liens/:lien_id/approve': { params: A.lienIdParam, response: { 200: A.lienView } },
  'POST /admin/v1/liens/:lien_id/reject': { params: A.lienIdParam, response: { 200: A.lienView } },
  'GET /admin/v1/wallets/:wallet_id/statement': {
    params: A.walletIdParam,
    querystring: A.statementQuery,
    response: { 200: A.statementView },
  },
  'GET /admin/v1/payouts': { querystring: A.payoutListQuery, response: { 200: A.payoutPage } },
  'GET /admin/v1/payouts/:transaction_id': {
    params: A.transactionIdParam,
    response: { 200: A.adminPayoutView },
  },
  'GET /admin/v1/payouts/:transaction_id/timeline': {
    params: A.transactionIdParam,
    response: { 200: A.payoutTimeline },
  },
  'POST /admin/v1/payouts/:transaction_id/resolve': {
    params: A.transactionIdParam,
    body: A.payoutResolveBody,
    response: { 200: A.adminPayoutView },
  },
  'POST /admin/v1/payouts/:transaction_id/return': {
    params: A.transactionIdParam,
    body: A.payoutReturnBody,
    response: { 200: A.adminPayoutView },
  },
  'GET /admin/v1/ledger/verify': { querystring: A.ledgerVerifyQuery, response: { 200: A.ledgerVerification } },
  'GET /admin/v1/platform/wallets': { response: { 200: A.platformWalletList } },
  'GET /admin/v1/platform/fees': { querystring: A.platformFeesQuery, response: { 200: A.platformFeeReport } },
  'GET /admin/v1/collections': { querystring: A.collectionListQuery, response: { 200: A.collectionPage } },
  'GET /admin/v1/collections/:txnId': { params: A.txnIdParam, response: { 200: A.adminCollectionView } },
  'GET /admin/v1/collections/:txnId/timeline': {
    params: A.txnIdParam,
    response: { 200: A.collectionTimeline },
  },
  'POST /admin/v1/collections/:txnId/resolve': {
    params: A.txnIdParam,
    body: A.collectionResolveBody,
    response: { 200: A.adminCollectionView },
  },
  'GET /admin/v1/batches': { querystring: A.batchListQuery, response: { 200: A.batchPage } },
  'GET /admin/v1/batches/:merchant_id/:batch_id': { params: A.batchParams, response: { 200: A.batchDetail } },
  'GET /admin/v1/webhooks/deliveries': { querystring: A.deliveryListQuery, response: { 200: A.deliveryPage } },
  'POST /admin/v1/webhooks/deliveries/:id/replay': {
    params: A.deliveryIdParam,
    response: { 202: A.deliveryReplayed },
  },
  'POST /admin/v1/webhooks/deliveries/replay': {
    body: A.replayFailedBody,
    response: { 202: A.failedReplayed },
  },
  'POST /admin/v1/operators': { body: A.operatorCreateBody, response: { 201: A.operatorView } },
  'GET /admin/v1/operators': { response: { 200: A.operatorList } },
  'PATCH /admin/v1/operators/:operator_id': {
    params: A.operatorIdParam,
    body: A.operatorPatchBody,
    response: { 200: A.operatorView },
  },
  'GET /admin/v1/audit': { querystring: A.auditQuery, response: { 200: A.auditPage } },
  'GET /admin/v1/credit-requests': {
    querystring: A.creditRequestQuery,
    response: { 200: A.creditRequestPage },
  },
  'POST /admin/v1/credit-requests/:credit_request_id/approve': {
    params: A.creditRequestIdParam,
    response: { 200: A.creditRequestView },
  },
  'POST /admin/v1/credit-requests/:credit_request_id/reject': {
    params: A.creditRequestIdParam,
    response: { 200: A.creditRequestView },
  },
  'GET /admin/v1/stats': { querystring: A.statsQuery, response: { 200: A.statsView } },
  'GET /admin/v1/connectors': { response: { 200: A.connectorList } },
  'POST /admin/v1/reconciliation/statements': {
    // The body is the statement file itself (XML or text), read as bytes: no JSON schema.
    response: { 200: A.reconImported, 201: A.reconImported },
  },
  'GET /admin/v1/reconciliation/runs': { querystring: A.reconRunQuery, response: { 200: A.reconRunPage } },
  'GET /admin/v1/reconciliation/runs/:run_id': {
    params: A.reconRunIdParam,
    querystring: A.reconRunDetailQuery,
    response: { 200: A.reconRunDetail },
  },
  'POST /admin/v1/reconciliation/runs/:run_id/items/:item_id/close': {
    params: A.reconCloseParams,
    body: A.reconCloseBody,
    response: { 200: A.reconItemView },
  },
  'GET /admin/v1/exceptions': { querystring: X.exceptionQuery, response: { 200: X.exceptionPage } },
  'GET /admin/v1/exceptions/:exception_id': { params: X.exceptionIdParam, response: { 200: X.exceptionView } },
  'POST /admin/v1/exceptions/:exception_id/resolve': {
    params: X.exceptionIdParam,
    body: X.exceptionResolveBody,
    response: { 200: X.exceptionView },
  },
  'PUT /admin/v1/merchants/:merchant_id/settlement': {
    params: A.settlementAccountParams,
    body: A.settlementAccountBody,
    response: { 200: A.settlementAccountView },
  },
  'GET /admin/v1/merchants/:merchant_id/settlement': {
    params: A.settlementAccountParams,
    response: { 200: A.settlementAccountView },
  },
  'GET /admin/v1/settlements': { querystring: A.settlementListQuery, response: { 200: A.settlementPage } },
  'GET /admin/v1/settlements/:settlement_id': {
    params: A.settlementIdParam,
    querystring: A.settlementFormatQuery,
    response: { 200: A.settlementView },
  },
  'POST /admin/v1/settlements': { body: A.settlementCreateBody, response: { 201: A.settlementView } },
  'POST /admin/v1/settlements/run': { response: { 200: A.settlementRunAnswer } },
  'POST /admin/v1/invoices/run': { body: A.invoiceRunBody, response: { 200: A.invoiceRunAnswer } },
  'GET /admin/v1/invoices': { querystring: A.invoiceListQuery, response: { 200: A.invoicePage } },
  'GET /admin/v1/invoices/:invoice_id': {
    params: A.invoiceIdParam,
    querystring: A.invoiceFormatQuery,
    response: { 200: A.invoiceView },
  },
  'GET /admin/v1/bankfiles': { querystring: A.bankFileLimitQuery, response: { 200: A.bankFileList } },
  'GET /admin/v1/bankfiles/inbound': {
    querystring: A.bankFileLimitQuery,
    response: { 200: A.bankFileInboundList },
  },
  'GET /admin/v1/bankfiles/:msg_id': {
    params: A.bankFileParams,
    response: { 200: textBody('application/xml: the pain.001 file as delivered') },
  },
} as const satisfies Record<string, RouteSchemas>;

const consoleRoutes = {
  'POST /console/api/session': { body: C.operatorSignInBody, response: { 200: C.operatorSession } },
  'GET /console/api/session': { response: { 200: C.operatorSession } },
  'DELETE /console/api/session': { response: { 204: noContent } },
  'GET /console/api/whoami': { response: { 200: C.whoami } },
  'POST /console/api/merchant/session': { body: C.merchantSignInBody, response: { 200: C.merchantSession } },
  'GET /console/api/merchant/session': { response: { 200: C.merchantSession } },
  'DELETE /console/api/merchant/session': { response: { 204: noContent } },
  'GET /console/api/merchant/overview': { response: { 200: C.merchantOverview } },
  'GET /console/api/merchant/wallets/:wallet_id/statement': {
    params: A.walletIdParam,
    querystring: A.statementQuery,
    response: { 200: A.statementView },
  },
  'GET /console/api/merchant/payouts': { querystring: C.consolePayoutQuery, response: { 200: A.payoutPage } },
  'GET /console/api/merchant/payouts/:transaction_id': {
    params: C.consoleTransactionParam,
    response: { 200: A.adminPayoutView },
  },
  'GET /console/api/merchant/payouts/:transaction_id/timeline': {
    params: C.consoleTransactionParam,
    response: { 200: A.payoutTimeline },
  },
  'GET /console/api/merchant/collections': {
    querystring: C.consoleCollectionQuery,
    response: { 200: A.collectionPage },
  },
  'GET /console/api/merchant/collections/:txnId': {
    params: C.consoleTxnIdParam,
    response: { 200: A.adminCollectionView },
  },
  'GET /console/api/merchant/collections/:txnId/qr': {
    params: C.consoleTxnIdParam,
    response: { 200: textBody('image/svg+xml') },
  },
  'GET /console/api/merchant/batches': { querystring: C.consoleBatchQuery, response: { 200: A.batchPage } },
  'GET /console/api/merchant/batches/:batch_id': {
    params: C.consoleBatchParam,
    response: { 200: A.batchDetail },
  },
  'GET /console/api/merchant/webhooks/deliveries': {
    querystring: C.consoleDeliveryQuery,
    response: { 200: A.deliveryPage },
  },
  'POST /console/api/merchant/webhook-secret/rotate': { response: { 200: A.webhookSecretRotated } },
  'POST /console/api/merchant/webhooks/deliveries/:id/replay': {
    params: C.consoleDeliveryParam,
    response: { 202: A.deliveryReplayed },
  },
  'GET /console/api/merchant/invoices': { querystring: A.consoleInvoiceQuery, response: { 200: A.invoicePage } },
  'GET /console/api/merchant/invoices/:invoice_id': {
    params: A.invoiceIdParam,
    querystring: A.invoiceFormatQuery,
    response: { 200: A.invoiceView },
  },
  'GET /console/api/merchant/settlement': { response: { 200: A.settlementAccountView } },
  'PUT /console/api/merchant/settlement': {
    body: C.consoleSettlementAccountBody,
    response: { 200: A.settlementAccountView },
  },
  'GET /console/api/merchant/settlements': {
    querystring: C.consoleSettlementQuery,
    response: { 200: A.settlementPage },
  },
  'GET /console/api/merchant/settlements/:settlement_id': {
    params: A.settlementIdParam,
    querystring: A.settlementFormatQuery,
    response: { 200: A.settlementView },
  },
  'GET /': { response: { 302: { description: 'Redirect to the console (/console)', type: 'null' } } },
  'GET /console': { response: { 200: textBody('text/html: the console') } },
  'GET /console/': { response: { 301: { description: 'Redirect to /console', type: 'null' } } },
  'GET /console/assets/*': {
    params: C.consoleAssetParams,
    response: { 200: textBody('A console file'), 404: adminError },
  },
} as const satisfies Record<string, RouteSchemas>;

const ops = {
  'GET /healthz': { response: { 200: O.healthLive } },
  'GET /readyz': { response: { 200: O.healthOk, 503: O.healthUnavailable } },
  'GET /metrics': { response: { 200: textBody('Prometheus text exposition format') } },
  'GET /pay/:token': {
    params: O.payPageParams,
    response: { 200: textBody('text/html'), 404: textBody('text/html: no collection has this link') },
  },
  'GET /pay/:token/status': {
    params: O.payPageParams,
    response: { 200: O.payPageStatus, 404: O.payPageError },
  },
  'POST /pay/:token/simulate': {
    params: O.payPageParams,
    body: O.payPageSimulateBody,
    response: { 200: O.payPageStatus, 404: O.payPageError, 409: O.payPageError },
  },
  'POST /psp/v1/collections/notify': {
    body: O.pspCollectionNotifyBody,
    response: { 200: O.pspCollectionAccepted },
  },
  'POST /psp/v1/payouts/notify': { body: O.pspPayoutNotifyBody, response: { 200: O.pspPayoutAccepted } },
  'POST /psp/v1/deposits/notify': { body: A.pspDepositNotifyBody, response: { 200: A.pspDepositAccepted } },
  'POST /psp/v1/upstream/webhook': {
    // The body is the upstream's event as raw bytes, verified by its signature before it is read: no JSON schema.
    response: { 200: O.upstreamWebhookAccepted },
  },
} as const satisfies Record<string, RouteSchemas>;

export const ROUTE_SCHEMAS = { ...merchant, ...admin, ...consoleRoutes, ...ops } as const;
export type RouteKey = keyof typeof ROUTE_SCHEMAS;

/** The schema of a route's request and answers; the server adds its docs (tags, summary) and error answers. */
export function routeSchema<const K extends RouteKey>(key: K): (typeof ROUTE_SCHEMAS)[K] {
  return ROUTE_SCHEMAS[key];
}

/** Routes that take a body but no JSON schema of it (raw bytes read by the route itself). */
export const RAW_BODY_ROUTES: readonly RouteKey[] = [
  'POST /admin/v1/reconciliation/statements',
  'POST /psp/v1/upstream/webhook',
];
