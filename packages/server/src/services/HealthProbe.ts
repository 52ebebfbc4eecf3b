import type { BuildInfo } from '../buildInfo.ts';
import type { Database } from '../store/Database.ts';
import { HealthRepository } from '../store/repositories/HealthRepository.ts';

/** The schema versions an instance reports: the newest it ships, and the database's as last read. */
export interface SchemaVersions {
  build: number;
  database: number;
}

/** What `/healthz` says about the instance: its build, the schema versions, whether its worker runs. */
export interface InstanceIdentity extends BuildInfo {
  schema: SchemaVersions;
  worker: 'on' | 'off';
}

/**
 * Readiness as the operator sees it (`/readyz`: the database answers), and the instance's identity (`/healthz`).
 * The database's schema version is read at start and again by each readiness check, so that an instance left
 * running while a newer build migrated the database shows it (docs/operator/upgrading.md) without `/healthz`
 * ever touching the database.
 */
export class HealthProbe {
  private databaseSchema: number;

  constructor(
    private readonly db: Database,
    private readonly build: BuildInfo,
    private readonly buildSchema: number,
    databaseSchema: number,
    private readonly worker: boolean,
  ) {
    this.databaseSchema = databaseSchema;
  }

  private redis: { reachable(): Promise<boolean | null> } | null = null;

  /** The Redis `/readyz` reports on (services/RedisProbe.ts), set once the client exists. */
  watchRedis(probe: { reachable(): Promise<boolean | null> }): void {
    this.redis = probe;
  }

  /**
   * Whether the configured Redis answers; null without Redis. Not part of readiness: without Redis each instance
   * counts rate limits and failures alone, which is degraded, not down (`/readyz` stays 200 and says so).
   */
  async redisState(): Promise<'ok' | 'unreachable' | null> {
    const reachable = (await this.redis?.reachable()) ?? null;
    return reachable === null ? null : reachable ? 'ok' : 'unreachable';
  }

  /** One statement per check (load balancers ask every few seconds): reading the schema version is the ping. */
  async databaseReachable(): Promise<boolean> {
    try {
      this.databaseSchema = await HealthRepository.schemaVersion(this.db);
      return true;
    } catch {
      return false;
    }
  }

  identity(): InstanceIdentity {
    return {
      ...this.build,
      schema: { build: this.buildSchema, database: this.databaseSchema },
      worker: this.worker ? 'on' : 'off',
    };
  }
}
