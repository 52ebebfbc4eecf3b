import { randomBytes, randomUUID } from 'node:crypto';
import {
  decryptJsonObject,
  MAX_CREDENTIAL_CHARS,
  MAX_V1_PAYLOAD_CHARS,
  TokenCodes,
  type Scheme,
} from '@payrail/protocol';
import { safeEqual } from '../domain/credentials.ts';
import type { Merchant } from '../domain/Merchant.ts';
import { RequestRejected } from '../domain/RequestRejected.ts';
import { RequestThrottled } from '../domain/RequestThrottled.ts';
import type { Clock } from '../clock.ts';
import type { CounterStore } from '../store/CounterStore.ts';
import type { Database } from '../store/Database.ts';
import { MerchantRepository } from '../store/repositories/MerchantRepository.ts';
import { SettingsRepository } from '../store/repositories/SettingsRepository.ts';
import { SecretBox } from '../store/SecretBox.ts';
import { counterName, FailureThrottle, type FailureLimit } from './FailureThrottle.ts';
import { Hs256Jwt } from './Hs256Jwt.ts';
import { MerchantCache } from './MerchantCache.ts';
import { V1KeyIndex } from './V1KeyIndex.ts';

export interface Session {
  merchant: Merchant;
  scheme: Scheme;
  tokenId: string;
}

export interface IssuedToken {
  token: string;
  expiresIn: number;
  merchant: Merchant;
  /** The session's scheme: the answer's `data` is encrypted with it. */
  scheme: Scheme;
}

export interface TokenServiceOptions {
  ttlSeconds: number;
  /** Fixed signing secret; otherwise one is generated once and kept in the database. */
  configuredSecret?: string;
  counters: CounterStore;
  /** Failed token requests allowed per API key and per client address in a 15-minute window. */
  failuresPerKey: number;
  failuresPerAddress: number;
  /** The V1 key index: at most one refresh from the database per this many milliseconds. */
  keyIndexRefreshMs?: number;
  /** The V1 key index: full scans (payloads in an unusual shape) per second. */
  keyIndexScansPerSecond?: number;
  /** Seals and opens secrets at rest (PAYRAIL_MASTER_KEY); default: plain. */
  secrets?: SecretBox;
  /** How long the token check uses a merchant read from the database (PAYRAIL_MERCHANT_CACHE_MS); default 1000. */
  merchantCacheMs?: number;
  /** The composition root's clock: tokens' `iat`/`exp`, the V1 index's refresh pace, the merchant cache. */
  clock: Clock;
}

const ISSUER = 'payrail';
const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** Longest accepted apiKey, secretKey and X-Api-Key, and V1 payload: the token routes' schemas (protocol). */
export { MAX_CREDENTIAL_CHARS, MAX_V1_PAYLOAD_CHARS };
/** How far in the future `iat` and `nbf` may be (clock skew between instances). */
const MAX_SKEW_SECONDS = 30;
/** The only header a token of ours has; anything else (kid, jku, x5u, jwk, crit, …) is refused. */
const HEADER_FIELDS = new Set(['alg', 'typ']);

const unauthorized = () => new RequestRejected(TokenCodes.unauthorized);
const shortString = (value: unknown, max = MAX_CREDENTIAL_CHARS): string | undefined =>
  typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined;
const field = (body: unknown, name: string): unknown =>
  body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as Record<string, unknown>)[name]
    : undefined;

/**
 * Plain credentials of the V1 token path: `api_key`/`secret_key` or `apiKey`/`secretKey`, one spelling. Null
 * when both spellings appear (an ambiguous request is refused rather than guessed at) or either value is bad.
 */
function plainCredentials(body: unknown): { apiKey: string; secretKey: string } | null {
  const snake = field(body, 'api_key') !== undefined || field(body, 'secret_key') !== undefined;
  const camel = field(body, 'apiKey') !== undefined || field(body, 'secretKey') !== undefined;
  if (snake === camel) return null;
  const apiKey = shortString(field(body, snake ? 'api_key' : 'apiKey'));
  const secretKey = shortString(field(body, snake ? 'secret_key' : 'secretKey'));
  return apiKey !== undefined && secretKey !== undefined ? { apiKey, secretKey } : null;
}

/**
 * Issues and verifies merchant JWTs (HS256). The signing key is shared by every instance: from configuration,
 * or generated once and kept in the database. A token carries the merchant's credentials version, which rotating
 * credentials and suspending the merchant both advance (migration 028), so either ends every session opened before
 * it, for good (a reactivation does not bring them back). Every failed token request counts toward the
 * failed-token throttle, by client address and (when the request names one) by API key.
 */
export class TokenService {
  private constructor(
    private readonly db: Database,
    private readonly merchants: MerchantRepository,
    private readonly jwt: Hs256Jwt,
    private readonly ttlSeconds: number,
    private readonly throttle: FailureThrottle,
    private readonly limits: { perKey: number; perAddress: number },
    /** Finds the merchant of a V1 payload sent without X-Api-Key. */
    readonly v1Index: V1KeyIndex,
    private readonly cache: MerchantCache,
    private readonly clock: Clock,
  ) {}

  static async create(db: Database, options: TokenServiceOptions): Promise<TokenService> {
    const box = options.secrets ?? SecretBox.plain();
    const merchants = new MerchantRepository(box);
    const secret =
      options.configuredSecret ??
      (await SettingsRepository.getOrCreateSecret(db, box, 'jwt_signing_key', randomBytes(32).toString('base64')));
    const throttle = new FailureThrottle(
      options.counters,
      FAILURE_WINDOW_MS,
      (seconds) => new RequestThrottled(TokenCodes.tooManyFailures, seconds),
    );
    const index = new V1KeyIndex(db, {
      refreshIntervalMs: options.keyIndexRefreshMs ?? 1000,
      scansPerSecond: options.keyIndexScansPerSecond ?? 2,
      merchants,
      clock: options.clock,
    });
    await index.load();
    return new TokenService(
      db,
      merchants,
      new Hs256Jwt(secret),
      options.ttlSeconds,
      throttle,
      { perKey: options.failuresPerKey, perAddress: options.failuresPerAddress },
      index,
      new MerchantCache({ ttlMs: options.merchantCacheMs ?? 1000, clock: options.clock }),
      options.clock,
    );
  }

  /**
   * A merchant changed through this instance (creation, rotation, suspension, settings): the V1 index takes the
   * new keys and the token check reads the row again, so the change holds here at once (elsewhere within the
   * merchant cache's bound).
   */
  merchantChanged(merchant: Merchant): void {
    this.v1Index.put(merchant);
    this.cache.forget(merchant.id);
  }

  /**
   * V2 token request: `{"apiKey","secretKey"}` in plain JSON (any body; it is checked here). Throws 4001 for
   * anything but the right credentials of an active merchant, 4290 when the throttle refuses.
   */
  async issueV2(body: unknown, address: string): Promise<IssuedToken> {
    const rawKey = field(body, 'apiKey');
    const apiKey = shortString(rawKey);
    const secretKey = shortString(field(body, 'secretKey'));
    const issued = await this.throttle.attempt(this.limitsFor(address, apiKey), async () => {
      if (apiKey === undefined || secretKey === undefined) return null;
      const merchant = await this.merchants.findByApiKey(this.db, apiKey);
      // Compare against a dummy when the key is unknown so both paths take the same time.
      const secretOk = safeEqual(secretKey, merchant?.secretKey ?? 'x'.repeat(16));
      const keyOk = merchant !== null && safeEqual(apiKey, merchant.apiKey);
      return merchant && secretOk && keyOk ? this.sign(merchant, 'v2') : null;
    });
    if (!issued) throw unauthorized();
    return issued;
  }

  /**
   * V1 token request, in either of the two forms the provider's live service accepts:
   * - `{"payload"}`: the credentials object V1-encrypted with the merchant's own keys (any plain fields beside it
   *   are ignored). With `X-Api-Key` (`apiKeyHeader`) the merchant is the one it names; without it the V1 index
   *   finds the merchant whose keys decrypt the payload. The session's scheme is V1.
   * - no `payload`: the credentials in plain JSON, `{"api_key","secret_key"}` or `{"apiKey","secretKey"}` (one
   *   spelling, never mixed); an `X-Api-Key`, when given, must name the same merchant. The session's scheme is the
   *   merchant's `default_scheme`, since the request names none.
   * Same answers as issueV2.
   */
  async issueV1(body: unknown, apiKeyHeader: unknown, address: string): Promise<IssuedToken> {
    if (field(body, 'payload') === undefined) return this.issueV1Plain(body, apiKeyHeader, address);
    const payload = shortString(field(body, 'payload'), MAX_V1_PAYLOAD_CHARS);
    const headerGiven = apiKeyHeader !== undefined;
    const headerKey = shortString(apiKeyHeader);
    const issued = await this.throttle.attempt(this.limitsFor(address, headerKey), async (guard) => {
      if (payload === undefined || (headerGiven && headerKey === undefined)) return null;
      if (headerKey !== undefined) {
        const merchant = await this.merchants.findByApiKey(this.db, headerKey);
        return merchant && safeEqual(headerKey, merchant.apiKey) ? this.openV1(merchant, payload) : null;
      }
      for (const id of await this.v1Index.candidates(payload)) {
        const merchant = await this.merchants.findById(this.db, id);
        if (!merchant) continue;
        // The index may be behind the database (rotated elsewhere): the row read now is the truth.
        this.v1Index.put(merchant);
        // A key locked by failures elsewhere stays locked on this path too.
        await guard(this.keyLimit(merchant.apiKey));
        const issued = this.openV1(merchant, payload);
        if (issued) return issued;
      }
      return null;
    });
    if (!issued) throw unauthorized();
    return issued;
  }

  /** The plain-JSON form of the V1 token path (see issueV1). */
  private async issueV1Plain(body: unknown, apiKeyHeader: unknown, address: string): Promise<IssuedToken> {
    const credentials = plainCredentials(body);
    const headerGiven = apiKeyHeader !== undefined;
    const headerKey = shortString(apiKeyHeader);
    const apiKey = credentials?.apiKey;
    const issued = await this.throttle.attempt(this.limitsFor(address, apiKey ?? headerKey), async () => {
      if (!credentials || apiKey === undefined) return null;
      if (headerGiven && (headerKey === undefined || !safeEqual(headerKey, apiKey))) return null;
      const merchant = await this.merchants.findByApiKey(this.db, apiKey);
      const secretOk = safeEqual(credentials.secretKey, merchant?.secretKey ?? 'x'.repeat(16));
      const keyOk = merchant !== null && safeEqual(apiKey, merchant.apiKey);
      return merchant && secretOk && keyOk ? this.sign(merchant, merchant.defaultScheme) : null;
    });
    if (!issued) throw unauthorized();
    return issued;
  }

  /** The session a bearer token opens, or null when it is invalid, expired, revoked or its merchant suspended. */
  async verify(token: string): Promise<Session | null> {
    const claims = this.verifiedClaims(token);
    if (!claims) return null;
    const load = (id: string) => this.merchants.findById(this.db, id);
    let merchant = await this.cache.get(claims.sub, load);
    // A token with a newer credentials version than the cached row (issued on another instance after a rotation or
    // a suspension this copy predates) proves the copy stale: read the row again rather than refuse a good token.
    if (merchant && typeof claims.cv === 'number' && claims.cv > merchant.credentialsVersion) {
      this.cache.forget(claims.sub);
      merchant = await this.cache.get(claims.sub, load);
    }
    if (!merchant || merchant.status !== 'active' || merchant.credentialsVersion !== claims.cv) return null;
    return { merchant, scheme: claims.scheme, tokenId: claims.jti };
  }

  /**
   * The claims of a token we signed, checked by hand rather than left to a library's defaults (SECURITY.md):
   * header exactly `{"alg":"HS256","typ":"JWT"}`, a good HS256 signature, `exp` required and passed by now,
   * `iat` required and `nbf` (if any) no more than 30 s ahead, our issuer, `sub`, `jti`, the scheme.
   */
  private verifiedClaims(token: string): { sub: string; jti: string; scheme: Scheme; cv: unknown } | null {
    if (typeof token !== 'string' || token.length > 4096) return null;
    const signed = this.jwt.verify(token);
    if (!signed) return null;
    const header = parseJson(signed.header);
    if (!header || header.alg !== 'HS256' || header.typ !== 'JWT') return null;
    if (Object.keys(header).some((name) => !HEADER_FIELDS.has(name))) return null;
    const claims = parseJson(signed.payload);
    if (!claims) return null;
    const now = Math.floor(this.clock() / 1000);
    const { exp, iat, nbf, sub, jti, scheme, iss } = claims;
    if (typeof exp !== 'number' || !Number.isFinite(exp) || exp <= now) return null;
    if (typeof iat !== 'number' || !Number.isFinite(iat) || iat > now + MAX_SKEW_SECONDS) return null;
    if (nbf !== undefined && (typeof nbf !== 'number' || !Number.isFinite(nbf) || nbf > now + MAX_SKEW_SECONDS)) {
      return null;
    }
    if (iss !== ISSUER || typeof sub !== 'string' || typeof jti !== 'string') return null;
    if (scheme !== 'v1' && scheme !== 'v2') return null;
    return { sub, jti, scheme, cv: claims.cv };
  }

  /** Decrypts a V1 payload with the merchant's keys; a token when it holds exactly that merchant's credentials. */
  private openV1(merchant: Merchant, payload: string): IssuedToken | null {
    let plain: Record<string, unknown>;
    try {
      plain = decryptJsonObject(payload, 'v1', merchant);
    } catch {
      return null;
    }
    const apiKey = shortString(plain.apiKey);
    const secretKey = shortString(plain.secretKey);
    if (apiKey === undefined || secretKey === undefined) return null;
    const keyOk = safeEqual(apiKey, merchant.apiKey);
    const secretOk = safeEqual(secretKey, merchant.secretKey);
    return keyOk && secretOk ? this.sign(merchant, 'v1') : null;
  }

  private sign(merchant: Merchant, scheme: Scheme): IssuedToken | null {
    if (merchant.status !== 'active') return null;
    const iat = Math.floor(this.clock() / 1000);
    const token = this.jwt.sign({
      scheme,
      cv: merchant.credentialsVersion,
      sub: merchant.id,
      iss: ISSUER,
      iat,
      exp: iat + this.ttlSeconds,
      jti: randomUUID(),
    });
    return { token, expiresIn: this.ttlSeconds, merchant, scheme };
  }

  private keyLimit(apiKey: string): FailureLimit {
    return { counter: counterName('tokfail:key', apiKey), max: this.limits.perKey };
  }

  private limitsFor(address: string, apiKey: string | undefined): FailureLimit[] {
    const byAddress = { counter: counterName('tokfail:ip', address), max: this.limits.perAddress };
    return apiKey === undefined ? [byAddress] : [byAddress, this.keyLimit(apiKey)];
  }
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
