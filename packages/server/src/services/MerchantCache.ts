import type { Merchant } from '../domain/Merchant.ts';
import type { Clock } from '../clock.ts';

export interface MerchantCacheOptions {
  /** How long a merchant read from the database is used without reading it again; 0: never cached. */
  ttlMs: number;
  /** The most merchants kept; the oldest entry goes first beyond it. */
  maxEntries?: number;
  /** The composition root's clock. */
  clock: Clock;
}

interface Entry {
  merchant: Merchant | null;
  loadedAt: number;
}

/**
 * Merchants (with their opened credentials) as the token check of every merchant request reads them, kept for at
 * most `ttlMs`. Issue 13 measured this read at about a quarter of a request's cost. The bound is the whole
 * promise: a change made on another instance (rotation, suspension, limits) is seen here at most `ttlMs` after it
 * committed, and a change made through this instance at once (`forget`). Money rules never rely on it: the
 * payout statement checks the merchant's status, credentials version and limits in the database itself.
 */
export class MerchantCache {
  private readonly entries = new Map<string, Entry>();
  /** One database read per merchant at a time: concurrent requests of a merchant wait for the same read. */
  private readonly loading = new Map<string, Promise<Merchant | null>>();
  private readonly maxEntries: number;
  private readonly clock: Clock;
  /** Bumped by every `forget`: a read that started before it is not stored (it may hold the old row). */
  private generation = 0;

  constructor(private readonly options: MerchantCacheOptions) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.clock = options.clock;
  }

  /** The merchant from memory when read within the last `ttlMs`, otherwise from `load` (and kept). */
  async get(id: string, load: (id: string) => Promise<Merchant | null>): Promise<Merchant | null> {
    if (this.options.ttlMs <= 0) return load(id);
    const entry = this.entries.get(id);
    if (entry && this.clock() - entry.loadedAt < this.options.ttlMs) return entry.merchant;
    const loading = this.loading.get(id);
    if (loading) return loading;
    const pending: Promise<Merchant | null> = this.read(id, load).finally(() => {
      if (this.loading.get(id) === pending) this.loading.delete(id);
    });
    this.loading.set(id, pending);
    return pending;
  }

  /** Drops what is known of a merchant: the next `get` reads the database. */
  forget(id: string): void {
    this.generation += 1;
    this.entries.delete(id);
    this.loading.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }

  private async read(id: string, load: (id: string) => Promise<Merchant | null>): Promise<Merchant | null> {
    const generation = this.generation;
    // The age counts from before the read: a row is never used longer than ttlMs after it was asked for.
    const loadedAt = this.clock();
    const merchant = await load(id);
    if (generation === this.generation) {
      this.entries.delete(id);
      this.entries.set(id, { merchant, loadedAt });
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    }
    return merchant;
  }
}
