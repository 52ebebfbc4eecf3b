import { formatPaise, isId, parseRupees, ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { gstinProblem, gstinState, isStateCode, normalizeGstin } from '../../domain/gstin.ts';
import { spendable } from '../../domain/lien.ts';
import type { Merchant, Wallet } from '../../domain/Merchant.ts';
import { CreditRefused, type MerchantPatch, type MerchantService } from '../../services/MerchantService.ts';
import type { CallbackPolicy } from '../../services/CallbackPolicy.ts';
import type { CreditApprovalService } from '../../services/CreditApprovalService.ts';
import type { LienService } from '../../services/LienService.ts';
import type { DepositService } from '../../services/DepositService.ts';
import { AdminError } from '../AdminError.ts';
import { creditRequestView } from './adminCreditRequestRoutes.ts';
import { readPage, textCursor } from '../pageCursor.ts';
import { webhookSecretView } from '../views/webhookSecretView.ts';
import { adminError, adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

interface Deps {
  merchants: MerchantService;
  creditApproval: CreditApprovalService;
  callbackPolicy: CallbackPolicy;
  liens: LienService;
}

const merchantCursor = textCursor(
  (key) => isId('merchant', key),
  (r: { merchant: Merchant; wallets: Wallet[] }) => r.merchant.id,
);

const limitText = (paise: bigint | null) => (paise === null ? null : formatPaise(paise));

function baseWalletView(w: Wallet, onHold?: bigint) {
  return {
    wallet_id: w.id,
    balance: formatPaise(w.balance),
    ...(onHold === undefined ? {} : { on_hold: formatPaise(onHold) }),
    currency: 'INR',
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

function baseMerchantView(m: Merchant, wallets: Wallet[]) {
  const settings = {
    collection_callback_url: m.collectionCallbackUrl,
    upi_vpa: m.upiVpa,
    upi_payee_name: m.upiPayeeName,
    beneficiary_verification: m.beneficiaryVerification,
    min_name_match_score: m.minNameMatchScore,
    default_scheme: m.defaultScheme,
  };
  const billing = { legal_name: m.legalName, gstin: m.gstin, billing_state: m.billingState };
  const limits = { daily_limit: limitText(m.dailyLimit), monthly_limit: limitText(m.monthlyLimit) };
  return {
    merchant_id: m.id,
    name: m.name,
    status: m.status,
    ...limits,
    ...settings,
    ...billing,
    limits,
    settings,
    wallets: wallets.map((w) => baseWalletView(w)),
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}

function parseLimit(field: string, value: unknown): bigint | null {
  if (value === null) return null;
  const paise = parseRupees(value);
  if (paise === null) throw AdminError.invalid(`${field} must be a positive amount like "50000.00", or null`);
  return paise;
}

const UPI_VPA = /^[A-Za-z0-9._-]{2,256}@[A-Za-z][A-Za-z0-9]{1,63}$/;

/**
 * The invoice recipient fields of a PATCH (legal_name, gstin, billing_state), checked. A GSTIN is registered in the
 * state its first two digits name, so a merchant's GSTIN and billing state agree: a GSTIN without a billing state
 * (in the body or stored) brings its own, and a disagreement is refused, naming the field the body changed.
 */
function billingPatch(
  body: { legal_name?: string | null; gstin?: string | null; billing_state?: string | null },
  current: Merchant,
): Pick<MerchantPatch, 'legalName' | 'gstin' | 'billingState'> {
  const patch: Pick<MerchantPatch, 'legalName' | 'gstin' | 'billingState'> = {};
  if ('legal_name' in body) {
    const name = body.legal_name?.trim() ?? null;
    if (name === '') throw AdminError.invalid('legal_name must not be blank (null removes it)');
    patch.legalName = name;
  }
  if ('gstin' in body) {
    const gstin = body.gstin === null || body.gstin === undefined ? null : normalizeGstin(body.gstin);
    const problem = gstin === null ? null : gstinProblem(gstin);
    if (problem) throw AdminError.invalid(`gstin is not a valid GSTIN: ${problem}`);
    patch.gstin = gstin;
  }
  if ('billing_state' in body) {
    const state = body.billing_state?.trim() ?? null;
    if (state !== null && !isStateCode(state)) {
      throw AdminError.invalid('billing_state must be a two-digit GST state code like 27 (Maharashtra), or null');
    }
    patch.billingState = state;
  }
  const gstin = patch.gstin !== undefined ? patch.gstin : current.gstin;
  const state = patch.billingState !== undefined ? patch.billingState : current.billingState;
  if (gstin !== null && state === null && patch.billingState === undefined) patch.billingState = gstinState(gstin);
  else if (gstin !== null && state !== null && gstinState(gstin) !== state) {
    const field = patch.billingState !== undefined ? 'billing_state' : 'gstin';
    throw AdminError.invalid(
      `${field}: the GSTIN ${gstin} is registered in state ${gstinState(gstin)}, the billing state is ${state}`,
    );
  }
  return patch;
}

/**
 * A second merchant of the same name is allowed (two businesses may share one) but is usually a walk-through run
 * twice: the creation says so, naming the others, so that the operator can tell them apart or suspend the new one.
 */
/** A warning's code, not an error's: the creation succeeded (operatorCodes.ts is the table of error codes). */
const DUPLICATE_NAME = 'duplicate_name';

function duplicateNameWarning(name: string, others: string[]) {
  const which = others.length === 1 ? 'another merchant is' : `${others.length} other merchants are`;
  return {
    code: DUPLICATE_NAME,
    message:
      `${which} already named ${JSON.stringify(name)} (${others.join(', ')}); this one is created anyway, with its ` +
      'own id, credentials and wallet: tell them apart by id, or suspend the one you did not mean',
    merchant_ids: others,
  };
}

/** Operator routes of docs/operator/admin-api.md for merchants, wallets, credits and credentials. */
export function adminMerchantRoutes(app: FastifyInstance, deps: Deps & { deposits: DepositService }) {
  const { merchants } = deps;
  // Each wallet with its virtual account (docs/merchant/funding-a-wallet.md), when there is one to show.
  const walletView = (w: Wallet, onHold?: bigint) => {
    const va = deps.deposits.virtualAccountOf(w);
    return { ...baseWalletView(w, onHold), ...(va ? { virtual_account: va } : {}) };
  };
  const merchantView = (m: Merchant, wallets: Wallet[]) => ({
    ...baseMerchantView(m, wallets),
    wallets: wallets.map((w) => walletView(w)),
  });

  app.post<RouteRequest<'POST /admin/v1/merchants'>>(
    '/admin/v1/merchants',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'Create a merchant with credentials and a first wallet',
        ...R['POST /admin/v1/merchants'],
        response: { ...R['POST /admin/v1/merchants'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => {
      const name = request.body.name.trim();
      if (!name) throw AdminError.invalid('name must not be blank');
      const { merchant, wallet, namesakes } = await merchants.create(name);
      return reply.code(201).send({
        merchant_id: merchant.id,
        name: merchant.name,
        api_key: merchant.apiKey,
        secret_key: merchant.secretKey,
        webhook_secret: merchant.webhookSecret,
        wallet_id: wallet.id,
        warnings: namesakes.length === 0 ? [] : [duplicateNameWarning(merchant.name, namesakes)],
      });
    },
  );

  app.get<RouteRequest<'GET /admin/v1/merchants/:merchant_id'>>(
    '/admin/v1/merchants/:merchant_id',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'A merchant without secrets, with wallets, limits and settings',
        ...R['GET /admin/v1/merchants/:merchant_id'],
        response: { ...R['GET /admin/v1/merchants/:merchant_id'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { merchant_id } = request.params;
      const merchant = await merchants.get(merchant_id);
      if (!merchant) throw AdminError.notFound('merchant');
      return merchantView(merchant, await merchants.wallets(merchant.id));
    },
  );

  app.patch<RouteRequest<'PATCH /admin/v1/merchants/:merchant_id'>>(
    '/admin/v1/merchants/:merchant_id',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary:
          'Change limits, callback URL, UPI payee settings, beneficiary verification, default scheme, status or the ' +
          'invoice recipient (legal_name, gstin, billing_state)',
        ...R['PATCH /admin/v1/merchants/:merchant_id'],
        response: { ...R['PATCH /admin/v1/merchants/:merchant_id'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { merchant_id } = request.params;
      const body = request.body;
      const patch: MerchantPatch = {};
      if ('daily_limit' in body) patch.dailyLimit = parseLimit('daily_limit', body.daily_limit);
      if ('monthly_limit' in body) patch.monthlyLimit = parseLimit('monthly_limit', body.monthly_limit);
      if ('collection_callback_url' in body) {
        const url = body.collection_callback_url ?? null;
        if (url !== null) {
          const problem = await deps.callbackPolicy.check(url);
          if (problem) throw AdminError.invalid(`collection_callback_url: ${problem}`);
        }
        patch.collectionCallbackUrl = url;
      }
      if ('upi_vpa' in body) {
        const vpa = body.upi_vpa ?? null;
        if (vpa !== null && !UPI_VPA.test(vpa)) throw AdminError.invalid('upi_vpa must look like name@bank');
        patch.upiVpa = vpa;
      }
      if ('upi_payee_name' in body) patch.upiPayeeName = body.upi_payee_name ?? null;
      if (body.status !== undefined) patch.status = body.status;
      if (body.beneficiary_verification !== undefined) patch.beneficiaryVerification = body.beneficiary_verification;
      if (body.min_name_match_score !== undefined) patch.minNameMatchScore = body.min_name_match_score;
      if (body.default_scheme !== undefined) patch.defaultScheme = body.default_scheme;
      if ('legal_name' in body || 'gstin' in body || 'billing_state' in body) {
        const current = await merchants.get(merchant_id);
        if (!current) throw AdminError.notFound('merchant');
        Object.assign(patch, billingPatch(body, current));
      }
      const merchant = await merchants.update(merchant_id, patch);
      if (!merchant) throw AdminError.notFound('merchant');
      return merchantView(merchant, await merchants.wallets(merchant.id));
    },
  );

  app.post<RouteRequest<'POST /admin/v1/merchants/:merchant_id/wallets'>>(
    '/admin/v1/merchants/:merchant_id/wallets',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'Open another wallet for a merchant',
        ...R['POST /admin/v1/merchants/:merchant_id/wallets'],
        response: { ...R['POST /admin/v1/merchants/:merchant_id/wallets'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => {
      const { merchant_id } = request.params;
      const wallet = await merchants.createWallet(merchant_id);
      if (!wallet) throw AdminError.notFound('merchant');
      return reply.code(201).send({ wallet_id: wallet.id });
    },
  );

  app.post<RouteRequest<'POST /admin/v1/merchants/:merchant_id/credentials/rotate'>>(
    '/admin/v1/merchants/:merchant_id/credentials/rotate',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'Issue new api_key and secret_key; the old ones and their tokens stop working at once',
        ...R['POST /admin/v1/merchants/:merchant_id/credentials/rotate'],
        response: { ...R['POST /admin/v1/merchants/:merchant_id/credentials/rotate'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { merchant_id } = request.params;
      const merchant = await merchants.rotateCredentials(merchant_id);
      if (!merchant) throw AdminError.notFound('merchant');
      return { merchant_id: merchant.id, api_key: merchant.apiKey, secret_key: merchant.secretKey };
    },
  );

  app.post<RouteRequest<'POST /admin/v1/merchants/:merchant_id/webhook-secret/rotate'>>(
    '/admin/v1/merchants/:merchant_id/webhook-secret/rotate',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'Issue a new webhook_secret; for 24 h deliveries are signed with both the new and the previous one',
        ...R['POST /admin/v1/merchants/:merchant_id/webhook-secret/rotate'],
        response: {
          ...R['POST /admin/v1/merchants/:merchant_id/webhook-secret/rotate'].response,
          ...adminErrorResponses,
        },
      },
    },
    async (request) => {
      const { merchant_id } = request.params;
      const rotated = await merchants.rotateWebhookSecret(merchant_id);
      if (!rotated) throw AdminError.notFound('merchant');
      return webhookSecretView(rotated);
    },
  );

  app.post<RouteRequest<'POST /admin/v1/wallets/:wallet_id/credits'>>(
    '/admin/v1/wallets/:wallet_id/credits',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'wallet.credit' },
      schema: {
        tags: ['admin'],
        summary:
          'Credit a wallet (idempotent per reference). An operator session whose credit takes its direct credits ' +
          'to this wallet over the last 24 h above PAYRAIL_CREDIT_APPROVAL_ABOVE gets 202 with a pending credit ' +
          'request instead (maker ≠ checker).',
        ...R['POST /admin/v1/wallets/:wallet_id/credits'],
        response: {
          ...R['POST /admin/v1/wallets/:wallet_id/credits'].response,
          ...adminErrorResponses,
          422: adminError,
        },
      },
    },
    async (request, reply) => {
      const { wallet_id } = request.params;
      const body = request.body;
      const amount = parseRupees(body.amount);
      if (amount === null) throw AdminError.invalid('amount must be a positive amount like "1000.00"');
      const outcome = await deps.creditApproval
        .credit(request.actor!, wallet_id, amount, body.reference)
        .catch((err: unknown) => {
          if (!(err instanceof CreditRefused)) throw err;
          if (err.reason === 'overflow') {
            throw new AdminError('balance_overflow', 'the balance would exceed the largest amount a wallet holds');
          }
          throw new AdminError('reference_conflict', 'this reference was already used for a credit of another amount');
        });
      if (outcome.kind === 'not_found') throw AdminError.notFound('wallet');
      if (outcome.kind === 'pending') {
        request.auditNote = `waits for approval as ${outcome.request.id}`;
        return reply.code(202).send(creditRequestView(outcome.request));
      }
      const result = outcome.result;
      return { wallet_id: result.walletId, balance: formatPaise(result.balance), duplicate: result.duplicate };
    },
  );

  app.get<RouteRequest<'GET /admin/v1/wallets/:wallet_id'>>(
    '/admin/v1/wallets/:wallet_id',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'A wallet with its balance and amount on hold',
        ...R['GET /admin/v1/wallets/:wallet_id'],
        response: { ...R['GET /admin/v1/wallets/:wallet_id'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { wallet_id } = request.params;
      const wallet = await merchants.wallet(wallet_id);
      if (!wallet) throw AdminError.notFound('wallet');
      const onLien = await deps.liens.onLien(wallet.id);
      return {
        ...walletView(wallet, await merchants.onHold(wallet.id)),
        available_balance: formatPaise(spendable(wallet.balance, onLien)),
        on_lien: formatPaise(onLien),
        merchant_id: wallet.merchantId,
      };
    },
  );

  // The operator's merchant list (`payrail merchant list`): each item exactly as GET /admin/v1/merchants/{id}.
  app.get<RouteRequest<'GET /admin/v1/merchants'>>(
    '/admin/v1/merchants',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'List merchants (no secrets), newest first, with cursor pagination',
        ...R['GET /admin/v1/merchants'],
        response: { ...R['GET /admin/v1/merchants'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      const search = q.q?.trim();
      const page = await readPage(q, merchantCursor, (limit, after) =>
        merchants.page({ search: search || undefined, status: q.status, limit, after }),
      );
      return { ...page, data: page.data.map((r) => merchantView(r.merchant, r.wallets)) };
    },
  );
}
