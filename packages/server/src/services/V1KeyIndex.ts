import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Merchant } from '../domain/Merchant.ts';
import type { Database } from '../store/Database.ts';
import { MerchantRepository } from '../store/repositories/MerchantRepository.ts';

/**
 * The ways a V1 token payload `{"apiKey","secretKey"}` usually starts: compact JSON (JavaScript, Java, PHP, Go,
 * .NET), Python's `json.dumps` (spaces after `:` and `,`), pretty-printed, and the other key order. The text
 * after each prefix is the named field's value.
 */
const OPENINGS: { prefix: string; field: 'apiKey' | 'secretKey' }[] = [];
for (const field of ['apiKey', 'secretKey'] as const) {
  for (const open of ['{', '{ ', '{\n  ', '{\n    ', '{\n\t', '{\r\n  ']) {
    for (const colon of [':', ': ']) OPENINGS.push({ prefix: `${open}"${field}"${colon}"`, field });
  }
}

const BLOCK = 16;
/** A scan yields to the event loop after this many merchants. */
const SCAN_CHUNK = 1_000;

interface Entry {
  merchantId: string;
  credentialsVersion: number;
  key: KeyObject;
  iv: Buffer;
  /** The first ciphertext blocks this merchant's usual payloads start with (latin1 strings, map keys). */
  blocks: string[];
}

export interface V1KeyIndexOptions {
  /** At most one refresh from the database per this many milliseconds (per instance). */
  refreshIntervalMs: number;
  /** Full scans (payloads in an unusual shape) allowed per second, per instance. */
  scansPerSecond: number;
  /** Where merchants are read from, their keys opened (the server's, on its master key; default: plain). */
  merchants?: MerchantRepository;
  /** The composition root's clock (refresh pace, scan allowance). */
  clock: Clock;
}

/** How far back each incremental refresh looks again: covers transactions that committed late. */
const LOOKBACK_MS = 60_000;

/**
 * Finds the merchant a headerless V1 token payload is for (docs/merchant/authentication.md) without trying every merchant's key.
 *
 * V1 is AES-256-CBC with a fixed IV per merchant, so a payload's first ciphertext block depends only on the
 * merchant's keys and the payload's first 16 bytes. For each merchant the index precomputes the first blocks of
 * the usual serialisations of its own credentials; a payload's first block then names its merchant with one map
 * lookup. A payload in another shape falls back to a scan: decrypt the first block with every key and keep those
 * that start like a JSON object (about 3 µs a merchant, so rate-limited). The index only proposes candidates: the
 * caller reads the merchant from the database and decrypts the whole payload with its current credentials.
 *
 * Several instances share one database: on a miss the index reloads the merchants whose credentials or status
 * changed since its last load (`keys_changed_at`), at most once per `refreshIntervalMs`; every caller waiting for
 * a miss shares that one query.
 */
export class V1KeyIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly byBlock = new Map<string, string>();
  private loadedAt: Date | null = null;
  private lastRefreshStart = 0;
  private running: Promise<void> = Promise.resolve();
  private pending: Promise<void> | null = null;
  private scanTokens: number;
  private scanRefilledAt: number;
  /** Refreshes from the database so far (tests check the bound). */
  refreshes = 0;

  constructor(
    private readonly db: Database,
    private readonly options: V1KeyIndexOptions,
  ) {
    this.scanTokens = options.scansPerSecond;
    this.scanRefilledAt = options.clock();
    this.merchants = options.merchants ?? new MerchantRepository();
  }

  private readonly merchants: MerchantRepository;

  get size(): number {
    return this.entries.size;
  }

  /** Loads every merchant (at start). */
  async load(): Promise<void> {
    this.lastRefreshStart = this.options.clock();
    const { merchants, now } = await this.merchants.keysChangedSince(this.db, null);
    for (const m of merchants) this.put(m);
    this.loadedAt = now;
  }

  /** Records a merchant's current credentials (after creation or rotation here, or a fresher database row). */
  put(m: Merchant): void {
    const old = this.entries.get(m.id);
    if (old && old.credentialsVersion === m.credentialsVersion) return;
    if (old) for (const b of old.blocks) if (this.byBlock.get(b) === m.id) this.byBlock.delete(b);
    const key = Buffer.from(m.apiKey, 'utf8');
    const iv = Buffer.from(m.secretKey, 'utf8');
    if (key.length !== 32 || iv.length !== BLOCK) return;
    const plain = Buffer.alloc(OPENINGS.length * BLOCK);
    OPENINGS.forEach(({ prefix, field }, i) => {
      const first = Buffer.from(prefix + m[field], 'utf8').subarray(0, BLOCK);
      for (let j = 0; j < BLOCK; j++) plain[i * BLOCK + j] = (first[j] as number) ^ (iv[j] as number);
    });
    // CBC's first block is AES(P1 xor IV): one ECB call over all the openings.
    const cipher = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
    const out = cipher.update(plain);
    const blocks = OPENINGS.map((_, i) => out.subarray(i * BLOCK, (i + 1) * BLOCK).toString('latin1'));
    for (const b of blocks) this.byBlock.set(b, m.id);
    this.entries.set(m.id, {
      merchantId: m.id,
      credentialsVersion: m.credentialsVersion,
      key: createSecretKey(key),
      iv,
      blocks,
    });
  }

  /**
   * Merchant ids the payload may be for, best first (at most a few). Empty when nobody's key fits, even after
   * a refresh from the database and a scan.
   */
  async candidates(payload: string): Promise<string[]> {
    const first = firstBlock(payload);
    if (!first) return [];
    const hit = this.byBlock.get(first.toString('latin1'));
    if (hit) return [hit];
    await this.refresh();
    const after = this.byBlock.get(first.toString('latin1'));
    if (after) return [after];
    return this.scan(first);
  }

  /**
   * Loads what changed since the last load. Resolves after a load that started after this call, so that a
   * caller sees every change committed before it asked; such loads start at most once per interval.
   */
  refresh(): Promise<void> {
    if (this.pending) return this.pending;
    const next = (async () => {
      await this.running;
      const wait = this.lastRefreshStart + this.options.refreshIntervalMs - this.options.clock();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      this.pending = null;
      this.lastRefreshStart = this.options.clock();
      this.refreshes += 1;
      const since = this.loadedAt && new Date(this.loadedAt.getTime() - LOOKBACK_MS);
      const run = this.merchants.keysChangedSince(this.db, since).then(({ merchants, now }) => {
        for (const m of merchants) this.put(m);
        this.loadedAt = now;
      });
      this.running = run.catch(() => undefined);
      await run;
    })();
    this.pending = next;
    return next;
  }

  /** Every key tried on the first block; a few scans a second at most (each costs ~3 µs per merchant). */
  private async scan(first: Buffer): Promise<string[]> {
    const now = this.options.clock();
    const rate = this.options.scansPerSecond;
    this.scanTokens = Math.min(rate, this.scanTokens + ((now - this.scanRefilledAt) / 1000) * rate);
    this.scanRefilledAt = now;
    if (this.scanTokens < 1) return [];
    this.scanTokens -= 1;
    const found: string[] = [];
    let seen = 0;
    for (const entry of [...this.entries.values()]) {
      const decipher = createDecipheriv('aes-256-ecb', entry.key, null).setAutoPadding(false);
      const block = decipher.update(first);
      for (let j = 0; j < BLOCK; j++) block[j] = (block[j] as number) ^ (entry.iv[j] as number);
      if (startsLikeJsonObject(block)) found.push(entry.merchantId);
      if (found.length >= 4) break;
      // Yield now and then so that one scan does not hold the event loop for its whole length.
      if (++seen % SCAN_CHUNK === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    return found;
  }
}

/** The first 16 bytes of a base64 payload, or null when it cannot be a V1 ciphertext. */
function firstBlock(payload: string): Buffer | null {
  if (payload.length < 24 || payload.length % 4 !== 0 || !/^[A-Za-z0-9+/]{24}/.test(payload)) return null;
  return Buffer.from(payload.slice(0, 24), 'base64').subarray(0, BLOCK);
}

/** Whitespace, `{`, whitespace, `"`, and then no control character: how a JSON object's text starts. */
function startsLikeJsonObject(block: Buffer): boolean {
  let i = 0;
  const space = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
  while (i < BLOCK && space(block[i] as number)) i++;
  if (block[i++] !== 0x7b) return false;
  while (i < BLOCK && space(block[i] as number)) i++;
  if (i < BLOCK && block[i] !== 0x22) return false;
  for (; i < BLOCK; i++) {
    const b = block[i] as number;
    if (b < 0x20 && !space(b)) return false;
    if (b === 0x7f) return false;
  }
  return true;
}
