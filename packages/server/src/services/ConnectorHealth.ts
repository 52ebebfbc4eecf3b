import type { Clock } from '../clock.ts';

/** One connector's recent record, as this instance saw it. */
export interface ConnectorRecord {
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  lastFailure: string | null;
}

/**
 * Whether each connector answered lately, from the calls this instance made (submissions, polls, balance reads).
 * Per instance and in memory on purpose: it says whether this process reaches the connector, which another
 * instance cannot say for it; the operator's view asks the instance it talks to.
 */
export class ConnectorHealth {
  private readonly records = new Map<string, ConnectorRecord>();

  constructor(private readonly clock: Clock) {}

  succeeded(connector: string): void {
    this.recordOf(connector).lastSuccessAt = new Date(this.clock());
  }

  failed(connector: string, why: string): void {
    const r = this.recordOf(connector);
    r.lastFailureAt = new Date(this.clock());
    r.lastFailure = why.slice(0, 255);
  }

  record(connector: string): ConnectorRecord {
    return { ...this.recordOf(connector) };
  }

  /** Healthy unless its last call failed (a connector never called yet counts as healthy). */
  healthy(connector: string): boolean {
    const r = this.recordOf(connector);
    if (!r.lastFailureAt) return true;
    return r.lastSuccessAt !== null && r.lastSuccessAt.getTime() >= r.lastFailureAt.getTime();
  }

  private recordOf(connector: string): ConnectorRecord {
    let r = this.records.get(connector);
    if (!r) {
      r = { lastSuccessAt: null, lastFailureAt: null, lastFailure: null };
      this.records.set(connector, r);
    }
    return r;
  }
}
