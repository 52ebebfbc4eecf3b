import type { PaymentMode } from '@payrail/protocol';
import type { BankConnector, ConnectorCapabilities } from './BankConnector.ts';

/** What a test double or an older connector that declares nothing can do. */
const PAYOUTS_ONLY: ConnectorCapabilities = {
  payouts: true,
  collections: false,
  verification: true,
  polling: true,
  webhooks: false,
};

/**
 * The configured connectors and the routing of payment modes to them (PAYRAIL_CONNECTOR, PAYRAIL_CONNECTOR_ROUTES).
 * A payout's connector is chosen once, at initiation, and kept on the payout (`rail`): a later change of the routes
 * does not move payouts already under way.
 */
export class ConnectorRegistry {
  private readonly byName = new Map<string, BankConnector>();

  constructor(
    connectors: BankConnector[],
    private readonly defaultName: string,
    private readonly routes: Partial<Record<PaymentMode, string>> = {},
  ) {
    for (const c of connectors) this.byName.set(c.name, c);
    for (const name of [defaultName, ...Object.values(routes)]) {
      if (!this.byName.has(name)) throw new Error(`connector ${name} is routed to but not configured`);
    }
  }

  /** The connector a new payout of `mode` goes to. */
  forMode(mode: PaymentMode): BankConnector {
    return this.byName.get(this.routes[mode] ?? this.defaultName) as BankConnector;
  }

  /** The default connector (collections, verification of a request whose mode is not known yet). */
  get defaultConnector(): BankConnector {
    return this.byName.get(this.defaultName) as BankConnector;
  }

  /** The connector named on a payout; null when this server no longer has it configured. */
  get(name: string): BankConnector | null {
    return this.byName.get(name) ?? null;
  }

  /** True when every mode goes to the default connector (bulk batches need no per-item routing then). */
  get routesEverythingToDefault(): boolean {
    return Object.values(this.routes).every((name) => name === this.defaultName);
  }

  /** The payment modes routed to `name` (the default connector takes every mode not routed elsewhere). */
  modesOf(name: string, allModes: readonly PaymentMode[]): PaymentMode[] {
    return allModes.filter((mode) => (this.routes[mode] ?? this.defaultName) === name);
  }

  all(): BankConnector[] {
    return [...this.byName.values()];
  }

  static capabilitiesOf(connector: BankConnector): ConnectorCapabilities {
    return connector.capabilities ?? PAYOUTS_ONLY;
  }
}
