import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** Prefix of a value sealed under a master key: `pr1:<key id>:<base64(nonce ‖ ciphertext ‖ tag)>`. */
export const SEALED_PREFIX = 'pr1:';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** HMAC key of API-key lookup hashes when no master key is configured (sandbox): a plain, unkeyed digest. */
const PLAIN_LOOKUP_KEY = Buffer.from('payrail/api-key-lookup/plain');

/** A stored secret that cannot be opened: unknown key id, or its tag does not verify (wrong key, altered value). */
export class SecretUnreadable extends Error {
  constructor(
    message: string,
    /** The key id the value names (null when the value is not in our format). */
    readonly keyId: string | null,
  ) {
    super(message);
    this.name = 'SecretUnreadable';
  }
}

interface MasterKey {
  id: string;
  enc: Buffer;
  lookup: Buffer;
}

/** First 8 hex digits of SHA-256 of the key: names the key beside each value without revealing it. */
export const masterKeyId = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

function derive(key: Buffer): MasterKey {
  // Separate keys for encryption and for lookup hashes, so neither use weakens the other.
  const sub = (info: string) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), info, 32));
  return {
    id: masterKeyId(key),
    enc: sub('payrail/secrets/aes-256-gcm'),
    lookup: sub('payrail/secrets/api-key-lookup'),
  };
}

/**
 * The one place where secrets at rest are sealed and opened (docs/operator/secrets-at-rest.md). With a master key, values
 * are AES-256-GCM under a key derived from it, tagged with its key id, and bound to their row by `context`
 * (additional data); values under the previous key (a rotation in progress) are still opened. Without a master
 * key (sandbox default) this is the "plain" box: values are stored as they are, through the same code path.
 */
export class SecretBox {
  private readonly byId: Map<string, MasterKey>;

  private constructor(
    private readonly current: MasterKey | null,
    previous: MasterKey | null,
  ) {
    this.byId = new Map([current, previous].filter((k): k is MasterKey => k !== null).map((k) => [k.id, k]));
  }

  /** No master key: values are kept in plain text (sandbox). */
  static plain(): SecretBox {
    return new SecretBox(null, null);
  }

  /** Seals under `current`; opens values under `current` or `previous` (both 32 bytes). */
  static withKeys(current: Buffer, previous?: Buffer): SecretBox {
    return new SecretBox(derive(current), previous ? derive(previous) : null);
  }

  /** The id of the key new values are sealed under; null for the plain box. */
  get currentKeyId(): string | null {
    return this.current?.id ?? null;
  }

  /** Every key id this box can open. */
  get keyIds(): string[] {
    return [...this.byId.keys()];
  }

  seal(plain: string, context: string): string {
    if (!this.current) return plain;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.enc, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([nonce, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${SEALED_PREFIX}${this.current.id}:${body.toString('base64')}`;
  }

  /** The plain value of a stored one; a value not in the sealed format is a plain one (sandbox, or not yet sealed). */
  open(stored: string, context: string): string {
    if (!stored.startsWith(SEALED_PREFIX)) return stored;
    const [keyId, body] = [stored.slice(4, 12), stored.slice(13)];
    if (stored[12] !== ':') throw new SecretUnreadable('a sealed secret is malformed', null);
    const key = this.byId.get(keyId);
    if (!key) {
      throw new SecretUnreadable(
        this.current
          ? `a secret in the database is sealed under master key ${keyId}, which is neither PAYRAIL_MASTER_KEY ` +
              `(${this.keyIds.join(' nor PAYRAIL_MASTER_KEY_PREVIOUS ')}); configure the key it was sealed with`
          : `a secret in the database is sealed under master key ${keyId}, but PAYRAIL_MASTER_KEY is not set`,
        keyId,
      );
    }
    const raw = Buffer.from(body, 'base64');
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw new SecretUnreadable(`a sealed secret is truncated`, keyId);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.enc, raw.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretUnreadable(`a secret sealed under master key ${keyId} does not verify (altered or moved)`, keyId);
    }
  }

  /** True when a stored value is not sealed under the current key (plain, or under the previous key). */
  needsReseal(stored: string): boolean {
    return this.current ? !stored.startsWith(`${SEALED_PREFIX}${this.current.id}:`) : false;
  }

  /** The lookup hash stored for `apiKey` now (HMAC-SHA256 under the current key's lookup key). */
  lookupHash(apiKey: string): string {
    return hmac(this.current?.lookup ?? PLAIN_LOOKUP_KEY, apiKey);
  }

  /**
   * Every lookup hash a row holding `apiKey` may carry: under the current key, the previous one (rotation in
   * progress), and the plain digest (a row written before a master key was configured).
   */
  lookupHashes(apiKey: string): string[] {
    return [...[...this.byId.values()].map((k) => hmac(k.lookup, apiKey)), hmac(PLAIN_LOOKUP_KEY, apiKey)];
  }
}

const hmac = (key: Buffer, value: string) => createHmac('sha256', key).update(value, 'utf8').digest('base64url');
