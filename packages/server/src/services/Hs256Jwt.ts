import { createHmac, timingSafeEqual } from 'node:crypto';

/** The only header our tokens have, encoded once. */
const HEADER_SEGMENT = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const SIGNATURE_BYTES = 32;

/**
 * HS256 JSON Web Tokens with node:crypto, synchronously: WebCrypto's HMAC (what jose uses) costs a promise and a
 * thread-pool hop per token, measurable on every merchant request (issue 13). Only the signature is checked
 * here; the caller checks the header's fields and the claims (TokenService, SECURITY.md).
 */
export class Hs256Jwt {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(secret, 'utf8');
  }

  sign(claims: Record<string, unknown>): string {
    const input = `${HEADER_SEGMENT}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${input}.${this.mac(input).toString('base64url')}`;
  }

  /**
   * The decoded header and payload of a token whose HS256 signature is good, or null. Every segment must be
   * unpadded base64url, and the signature canonical (exactly 32 bytes whose encoding is the segment itself, so
   * that no second spelling of a signature is accepted).
   */
  verify(token: string): { header: string; payload: string } | null {
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
    if (!BASE64URL.test(headerPart) || !BASE64URL.test(payloadPart) || !BASE64URL.test(signaturePart)) return null;
    const signature = Buffer.from(signaturePart, 'base64url');
    if (signature.length !== SIGNATURE_BYTES || signature.toString('base64url') !== signaturePart) return null;
    if (!timingSafeEqual(signature, this.mac(`${headerPart}.${payloadPart}`))) return null;
    return {
      header: Buffer.from(headerPart, 'base64url').toString('utf8'),
      payload: Buffer.from(payloadPart, 'base64url').toString('utf8'),
    };
  }

  private mac(input: string): Buffer {
    return createHmac('sha256', this.key).update(input).digest();
  }
}
