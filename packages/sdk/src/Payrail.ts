import { Beneficiaries } from './beneficiaries.ts';
import { Collections, Sandbox } from './collections.ts';
import { Core } from './core.ts';
import { Payouts } from './payouts.ts';
import { Settlements } from './settlements.ts';
import type { PayrailOptions, Scheme, TokenInfo } from './types.ts';
import { Wallets } from './wallets.ts';
import { Webhooks } from './webhooks.ts';

/**
 * The Payrail merchant client. One instance per set of credentials; it is safe to share between concurrent
 * calls (they share one token and one status-request budget).
 *
 *   const payrail = new Payrail({ baseUrl, apiKey, secretKey, webhookSecret });
 *   const payout = await payrail.payouts.initiate({ senderId, walletId, paymentMode: 'IMPS', amount: '100.00',
 *     beneficiary: { name, accountNumber, ifsc } });
 */
export class Payrail {
  readonly payouts: Payouts;
  readonly wallets: Wallets;
  readonly collections: Collections;
  readonly beneficiaries: Beneficiaries;
  /** Your collections, net of fees, paid to your settlement account. */
  readonly settlements: Settlements;
  readonly webhooks: Webhooks;
  /** Sandbox-only helpers. */
  readonly sandbox: Sandbox;
  private readonly core: Core;

  constructor(options: PayrailOptions) {
    this.core = new Core(options);
    this.payouts = new Payouts(this.core);
    this.wallets = new Wallets(this.core);
    this.collections = new Collections(this.core);
    this.beneficiaries = new Beneficiaries(this.core);
    this.settlements = new Settlements(this.core);
    this.webhooks = new Webhooks(this.core);
    this.sandbox = new Sandbox(this.core, this.collections);
  }

  get baseUrl(): string {
    return this.core.baseUrl;
  }

  get scheme(): Scheme {
    return this.core.scheme;
  }

  /** The current bearer token (fetched or renewed when needed), e.g. to call the API by other means. */
  token(): Promise<TokenInfo> {
    return this.core.token();
  }
}
