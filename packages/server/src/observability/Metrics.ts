import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { EXCEPTION_KINDS } from '../domain/outsideReport.ts';

/** The database's backlog, as the composition root hands it (services/BacklogProbe.ts). */
export interface BacklogSource {
  read(): Promise<{ jobsDue: number; deliveriesDue: number; payoutsStuck: number }>;
}

type BacklogFigures = Awaited<ReturnType<BacklogSource['read']>>;

/**
 * `read` shared by the gauges one read feeds: prom-client collects a scrape's metrics concurrently, so each gauge
 * waits for the read in flight (started by whichever is collected first) instead of reading the last scrape's. A
 * database that does not answer gives null: the gauges keep their last figures and /metrics still answers.
 */
function sharedRead<T>(read: () => Promise<T> | null): () => Promise<T | null> {
  let inFlight: Promise<T | null> | null = null;
  return () => {
    if (inFlight) return inFlight;
    const started = read();
    if (!started) return Promise.resolve(null);
    inFlight = started
      .catch(() => null)
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };
}

/** The Prometheus registry of one server process and the application metrics it exposes at /metrics. */
export class Metrics {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'payrail_http_request_duration_seconds',
    help: 'HTTP request duration by route, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly payoutsInitiated = new Counter({
    name: 'payrail_payouts_initiated_total',
    help: 'Payouts accepted by payment mode',
    labelNames: ['mode'] as const,
    registers: [this.registry],
  });

  /** Initiations opened by one statement together (PayoutOpenGroups): 1 when alone, more under load. */
  readonly payoutOpenGroupSize = new Histogram({
    name: 'payrail_payout_open_group_size',
    help: 'Single initiations opened together by one statement',
    buckets: [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128],
    registers: [this.registry],
  });

  /** What retention removed (jobs/Retention.ts): delivered webhook deliveries past PAYRAIL_RETENTION_DAYS. */
  readonly retentionRemoved = new Counter({
    name: 'payrail_retention_removed_total',
    help: 'Delivered webhook deliveries and their attempts removed by retention',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly payoutsRejected = new Counter({
    name: 'payrail_payouts_rejected_total',
    help: 'Payout initiations refused, by response code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  readonly payoutTransitions = new Counter({
    name: 'payrail_payout_transitions_total',
    help: 'Payout status changes by new status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly collectionTransitions = new Counter({
    name: 'payrail_collection_transitions_total',
    help: 'Collection status changes by new status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: 'payrail_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Set by the composition root: refreshes the two gauges below when /metrics is read. */
  refreshConnectors: (() => Promise<void>) | null = null;

  readonly connectorUp = new Gauge({
    name: 'payrail_connector_up',
    help: 'Whether the connector answered its last call from this instance (1) or not (0); only connectors some payment mode is routed to',
    labelNames: ['connector'] as const,
    registers: [this.registry],
    collect: async () => {
      await this.connectorsRefreshed();
    },
  });

  /**
   * No sample while the ratio is unknown (no connector with an account, its balance never read, nothing owed: the
   * admin API's null), never a 0 that a "coverage below 1" alert would take for an empty account.
   */
  readonly treasuryCoverage = new Gauge({
    name: 'payrail_treasury_coverage_ratio',
    help: "The upstream account's balance divided by what Payrail owes its merchants (wallets and payouts on hold); absent while unknown",
    registers: [this.registry],
    collect: async () => {
      await this.connectorsRefreshed();
    },
  });

  /** One refresh for both connector gauges (sharedRead). */
  private readonly connectorsRefreshed = sharedRead(() => this.refreshConnectors?.() ?? null);

  /** Set by the composition root: the open exceptions per kind, read from the database when /metrics is read. */
  readExceptions: (() => Promise<{ kind: string; count: number }[]>) | null = null;

  readonly exceptionsOpen = new Gauge({
    name: 'payrail_exceptions_open',
    help: 'Open entries of the exceptions queue (reports refused, reconciliation results other than matched), by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
    collect: async () => {
      if (!this.readExceptions) return;
      const open = await this.readExceptions().catch(() => null);
      // A database that does not answer leaves the last figures: /metrics still answers.
      if (!open) return;
      // Every kind is exported, 0 when none is open, so that an alert on a kind has a series to watch.
      for (const kind of EXCEPTION_KINDS) this.exceptionsOpen.set({ kind }, 0);
      for (const { kind, count } of open) this.exceptionsOpen.set({ kind }, count);
    },
  });

  readonly buildInfo = new Gauge({
    name: 'payrail_build_info',
    help: 'Always 1: the version and commit this instance runs (docs/operator/upgrading.md)',
    labelNames: ['version', 'commit'] as const,
    registers: [this.registry],
  });

  /** Set by the composition root: the schema versions the instance reports (services/HealthProbe.ts). */
  readSchema: (() => { build: number; database: number }) | null = null;

  readonly schemaVersion = new Gauge({
    name: 'payrail_schema_version',
    help: 'Schema version: of="build", the newest migration this instance ships; of="database", the database\'s as last read',
    labelNames: ['of'] as const,
    registers: [this.registry],
    collect: () => {
      const schema = this.readSchema?.();
      if (!schema) return;
      this.schemaVersion.set({ of: 'build' }, schema.build);
      this.schemaVersion.set({ of: 'database' }, schema.database);
    },
  });

  /** Set by the composition root: the backlog in the database (services/BacklogProbe.ts), read at each scrape. */
  backlog: BacklogSource | null = null;

  readonly jobsDue = this.backlogGauge(
    'payrail_jobs_due',
    'Background jobs (payout steps, collection expiry) due and not yet started by any instance',
    (b) => b.jobsDue,
  );

  readonly webhookDeliveriesDue = this.backlogGauge(
    'payrail_webhook_deliveries_due',
    'Webhook deliveries due for an attempt and not yet started by any instance',
    (b) => b.deliveriesDue,
  );

  readonly payoutsStuck = this.backlogGauge(
    'payrail_payouts_stuck',
    'Payouts PROCESSING or PENDING whose status has not changed for longer than PAYRAIL_STUCK_PAYOUT_MINUTES',
    (b) => b.payoutsStuck,
  );

  /** Set by the composition root: whether the configured Redis answers (null: no Redis configured). */
  readRedis: (() => Promise<boolean | null>) | null = null;

  readonly redisUp = new Gauge({
    name: 'payrail_redis_up',
    help: 'Whether the configured Redis answered a ping from this instance (1) or not (0); absent without Redis',
    registers: [this.registry],
    collect: async () => {
      const up = await this.readRedis?.();
      if (up === null || up === undefined) this.redisUp.remove();
      else this.redisUp.set(up ? 1 : 0);
    },
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'payrail_' });
    // prom-client starts a gauge without labels at 0: these have no sample until they are known.
    this.treasuryCoverage.remove();
    this.redisUp.remove();
  }

  /** One read of the backlog for its three gauges (sharedRead). */
  private readonly backlogRefreshed = sharedRead(() => this.backlog?.read() ?? null);

  /** A gauge of the database's backlog, set at each scrape from the one read of all three. */
  private backlogGauge(name: string, help: string, pick: (b: BacklogFigures) => number): Gauge {
    const gauge: Gauge = new Gauge({
      name,
      help,
      registers: [this.registry],
      collect: async () => {
        const figures = await this.backlogRefreshed();
        if (figures) gauge.set(pick(figures));
      },
    });
    return gauge;
  }
}
