import { randomBytes, randomUUID, webcrypto } from 'node:crypto';
import type { Scheme } from '@payrail/protocol';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { safeEqual } from '../domain/credentials.ts';
import type { Merchant } from '../domain/Merchant.ts';
import type { Database } from '../store/Database.ts';
import { MerchantRepository } from '../store/repositories/MerchantRepository.ts';
import { SettingsRepository } from '../store/repositories/SettingsRepository.ts';

export interface Session {
  merchant: Merchant;
  scheme: Scheme;
  tokenId: string;
}

export interface IssuedToken {
  token: string;
  expiresIn: number;
  merchant: Merchant;
}

const ISSUER = 'payrail';

/**
 * Issues and verifies merchant JWTs (HS256). The signing key is shared by every instance: from configuration,
 * or generated once and kept in the database. A token carries the merchant's credentials version, so rotating
 * credentials ends every session opened with the old ones.
 */
export class TokenService {
  private constructor(
    private readonly db: Database,
    /** Imported once: given raw bytes, jose would import the key again on every sign and verify. */
    private readonly key: webcrypto.CryptoKey,
    private readonly ttlSeconds: number,
  ) {}

  static async create(db: Database, ttlSeconds: number, configuredSecret?: string): Promise<TokenService> {
    const secret =
      configuredSecret ??
      (await SettingsRepository.getOrCreate(db, 'jwt_signing_key', randomBytes(32).toString('base64')));
    const key = await webcrypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    return new TokenService(db, key, ttlSeconds);
  }

  /**
   * Checks credentials in constant time and issues a token; null on any failure (unknown key, wrong secret,
   * suspended merchant), without saying which.
   */
  async issue(apiKey: string, secretKey: string, scheme: Scheme): Promise<IssuedToken | null> {
    const merchant = await MerchantRepository.findByApiKey(this.db, apiKey);
    // Compare against a dummy when the key is unknown so both paths take the same time.
    const secretOk = safeEqual(secretKey, merchant?.secretKey ?? 'x'.repeat(16));
    const keyOk = merchant !== null && safeEqual(apiKey, merchant.apiKey);
    if (!merchant || !secretOk || !keyOk || merchant.status !== 'active') return null;
    const token = await new SignJWT({ scheme, cv: merchant.credentialsVersion })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(merchant.id)
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .setJti(randomUUID())
      .sign(this.key);
    return { token, expiresIn: this.ttlSeconds, merchant };
  }

  /** The session a bearer token opens, or null when it is invalid, expired, revoked or its merchant suspended. */
  async verify(token: string): Promise<Session | null> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: ISSUER, typ: 'JWT' }));
    } catch (err) {
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return null;
      throw err;
    }
    const scheme = payload.scheme;
    if ((scheme !== 'v1' && scheme !== 'v2') || typeof payload.sub !== 'string' || typeof payload.jti !== 'string') {
      return null;
    }
    const merchant = await MerchantRepository.findById(this.db, payload.sub);
    if (!merchant || merchant.status !== 'active' || merchant.credentialsVersion !== payload.cv) return null;
    return { merchant, scheme, tokenId: payload.jti };
  }
}
