import { formatPaise, PAYMENT_MODES } from '@payrail/protocol';
import type { Clock } from '../clock.ts';
import type { ConnectorBalance } from '../rails/BankConnector.ts';
import { ConnectorRegistry } from '../rails/ConnectorRegistry.ts';
import type { Database } from '../store/Database.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';
import type { ConnectorHealth } from './ConnectorHealth.ts';

/** A connector's balance is read from it at most this often (the treasury view may be refreshed by anyone). */
const BALANCE_MAX_AGE_MS = 30_000;

export interface TreasuryView {
  upstream_balance: string;
  read_at: string;
  owed: string;
  /** upstream_balance / owed with 4 decimals; null when nothing is owed. */
  coverage: string | null;
}

export interface ConnectorView {
  name: string;
  routes: string[];
  capabilities: Record<string, boolean>;
  healthy: boolean;
  last_success_at: string | null;
  last_failure_at: string | null;
  last_failure: string | null;
  treasury: TreasuryView | null;
}

/** `numerator / denominator` as decimal text with 4 decimals, rounded down, in integer arithmetic. */
export function ratioText(numerator: bigint, denominator: bigint): string | null {
  if (denominator <= 0n) return null;
  const scaled = (numerator * 10_000n) / denominator;
  const sign = scaled < 0n ? '-' : '';
  const abs = scaled < 0n ? -scaled : scaled;
  return `${sign}${abs / 10_000n}.${(abs % 10_000n).toString().padStart(4, '0')}`;
}

/**
 * The operator's view of the connectors: what each is routed, whether it answers, and for a connector with an
 * account of its own (the upstream) whether that account covers what Payrail owes its merchants.
 */
export class TreasuryService {
  private readonly balances = new Map<string, { value: ConnectorBalance; at: number }>();

  constructor(
    private readonly db: Database,
    private readonly connectors: ConnectorRegistry,
    private readonly health: ConnectorHealth,
    private readonly clock: Clock,
  ) {}

  /**
   * Sets the connector gauges of /metrics from what `list` finds: `up` only for the connectors a payment mode is
   * routed to (an unused `manual` answering nothing is not "up"), the coverage only while it is known (the admin
   * API's null leaves no sample rather than a 0 that an alert would read as an empty account).
   */
  async refreshMetrics(metrics: {
    connectorUp: { set(labels: { connector: string }, value: number): void };
    treasuryCoverage: { set(value: number): void; remove(): void };
  }): Promise<void> {
    let coverage: string | null = null;
    for (const view of await this.list()) {
      if (view.routes.length > 0) metrics.connectorUp.set({ connector: view.name }, view.healthy ? 1 : 0);
      coverage = view.treasury?.coverage ?? coverage;
    }
    // A gauge is a float by nature; the ratio was computed exactly and only its 4-decimal text is converted.
    if (coverage === null) metrics.treasuryCoverage.remove();
    else metrics.treasuryCoverage.set(Number(coverage));
  }

  async list(): Promise<ConnectorView[]> {
    const views: ConnectorView[] = [];
    for (const connector of this.connectors.all()) {
      const record = this.health.record(connector.name);
      views.push({
        name: connector.name,
        routes: this.connectors.modesOf(connector.name, PAYMENT_MODES),
        capabilities: { ...ConnectorRegistry.capabilitiesOf(connector) },
        healthy: this.health.healthy(connector.name),
        last_success_at: record.lastSuccessAt?.toISOString() ?? null,
        last_failure_at: record.lastFailureAt?.toISOString() ?? null,
        last_failure: record.lastFailure,
        treasury: connector.balance ? await this.treasuryOf(connector.name, () => connector.balance!()) : null,
      });
    }
    return views;
  }

  private async treasuryOf(name: string, read: () => Promise<ConnectorBalance>): Promise<TreasuryView | null> {
    let cached = this.balances.get(name);
    if (!cached || this.clock() - cached.at > BALANCE_MAX_AGE_MS) {
      try {
        const value = await read();
        cached = { value, at: this.clock() };
        this.balances.set(name, cached);
        this.health.succeeded(name);
      } catch (err) {
        this.health.failed(name, `balance: ${(err as Error).message}`);
        if (!cached) return null;
      }
    }
    const owed = await WalletRepository.owedInAll(this.db);
    return {
      upstream_balance: formatPaise(cached.value.balance),
      read_at: cached.value.readAt.toISOString(),
      owed: formatPaise(owed),
      coverage: ratioText(cached.value.balance, owed),
    };
  }
}
