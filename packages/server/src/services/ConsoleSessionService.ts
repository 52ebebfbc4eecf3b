import { createHash, randomBytes } from 'node:crypto';
import { safeEqual } from '../domain/credentials.ts';
import type { Merchant } from '../domain/Merchant.ts';
import type { Operator } from '../domain/Operator.ts';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../domain/passwordHash.ts';
import type { Database } from '../store/Database.ts';
import { ConsoleSessionRepository } from '../store/repositories/ConsoleSessionRepository.ts';
import type { MerchantRepository } from '../store/repositories/MerchantRepository.ts';
import { OperatorRepository } from '../store/repositories/OperatorRepository.ts';
import type { Clock } from '../clock.ts';

export interface OpenedSession<T> {
  /** The cookie value: shown to the browser once, stored only as its hash. */
  token: string;
  csrfToken: string;
  expiresAt: Date;
  /** When it was opened (the composition root's clock): the cookie's Max-Age counts from here. */
  openedAt: Date;
  subject: T;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url');

/**
 * The CSRF token of a session, derived from the cookie value: the page reads it from the sign-in answer (or
 * GET /console/api/session) and sends it as `X-CSRF-Token`; a cross-site page can neither read nor compute it.
 */
export const csrfTokenOf = (sessionToken: string) => sha256(`csrf:${sessionToken}`);

/** Console sign-in for operators (e-mail and password) and merchants (API key and secret key). */
export class ConsoleSessionService {
  constructor(
    private readonly db: Database,
    private readonly ttlMs: number,
    /** Reads merchants with their secrets opened (the master key's box). */
    private readonly merchantRepository: MerchantRepository,
    private readonly clock: Clock,
  ) {}

  private async open<T>(
    subject: T,
    row: { kind: 'operator' | 'merchant'; operatorId?: string; merchantId?: string; credentialsVersion?: number },
    clientAddress: string,
  ): Promise<OpenedSession<T>> {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock();
    const expiresAt = new Date(now + this.ttlMs);
    await ConsoleSessionRepository.deleteExpired(this.db, new Date(now));
    await ConsoleSessionRepository.insert(this.db, { tokenHash: sha256(token), ...row, clientAddress, expiresAt });
    return { token, csrfToken: csrfTokenOf(token), expiresAt, openedAt: new Date(now), subject };
  }

  /** Null for an unknown address, a wrong password or a disabled account, without saying which. */
  async signInOperator(email: string, password: string, clientAddress: string) {
    const found = await OperatorRepository.findForSignIn(this.db, email);
    // Check a dummy hash for an unknown address so that both paths take the same time.
    const ok = await verifyPassword(password, found?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if (!found || !ok || found.operator.disabled) return null;
    return this.open(found.operator, { kind: 'operator', operatorId: found.operator.id }, clientAddress);
  }

  /** The token endpoints' credentials check: null for wrong credentials or a suspended merchant, alike. */
  async signInMerchant(apiKey: string, secretKey: string, clientAddress: string) {
    const found = await this.merchantRepository.findByApiKey(this.db, apiKey);
    // Compare against a dummy when the key is unknown so both paths take the same time.
    const secretOk = safeEqual(secretKey, found?.secretKey ?? 'x'.repeat(16));
    const keyOk = found !== null && safeEqual(apiKey, found.apiKey);
    if (!found || !secretOk || !keyOk || found.status !== 'active') return null;
    const m = found;
    return this.open(
      m,
      { kind: 'merchant', merchantId: m.id, credentialsVersion: m.credentialsVersion },
      clientAddress,
    );
  }

  /** The operator of a live session; null when it expired, was signed out, or the operator is disabled. */
  async operatorOf(token: string): Promise<Operator | null> {
    const row = await ConsoleSessionRepository.findLive(this.db, sha256(token), 'operator', new Date(this.clock()));
    if (!row?.operator_id) return null;
    const operator = await OperatorRepository.findById(this.db, row.operator_id);
    return operator && !operator.disabled ? operator : null;
  }

  /** The merchant of a live session; null when expired, signed out, suspended or its credentials rotated since. */
  async merchantOf(token: string): Promise<Merchant | null> {
    const row = await ConsoleSessionRepository.findLive(this.db, sha256(token), 'merchant', new Date(this.clock()));
    if (!row?.merchant_id) return null;
    const merchant = await this.merchantRepository.findById(this.db, row.merchant_id);
    if (!merchant || merchant.status !== 'active') return null;
    return merchant.credentialsVersion === Number(row.credentials_version) ? merchant : null;
  }

  async signOut(token: string): Promise<void> {
    await ConsoleSessionRepository.delete(this.db, sha256(token));
  }
}
