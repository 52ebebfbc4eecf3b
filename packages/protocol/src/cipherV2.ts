import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { decodeBase64Strict } from './base64.ts';
import { DecryptError } from './DecryptError.ts';
import type { KeyMaterial } from './scheme.ts';

export const V2_NONCE_BYTES = 12;
export const V2_TAG_BYTES = 16;

/** V2 key: SHA-256 of the UTF-8 secret key. */
export function v2Key(secretKey: string): Buffer {
  return createHash('sha256').update(secretKey, 'utf8').digest();
}

/**
 * V2: AES-256-GCM, random 12-byte nonce, 16-byte tag, output base64(nonce ‖ ciphertext ‖ tag).
 * `nonce` may be given only to reproduce published test vectors.
 */
export function encryptV2(plaintext: string, keys: Pick<KeyMaterial, 'secretKey'>, nonce?: Buffer): string {
  const iv = nonce ?? randomBytes(V2_NONCE_BYTES);
  if (iv.length !== V2_NONCE_BYTES) throw new RangeError('V2 nonce must be 12 bytes');
  const cipher = createCipheriv('aes-256-gcm', v2Key(keys.secretKey), iv, { authTagLength: V2_TAG_BYTES });
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
}

export function decryptV2(encoded: string, keys: Pick<KeyMaterial, 'secretKey'>): string {
  const data = decodeBase64Strict(encoded);
  if (data.length < V2_NONCE_BYTES + V2_TAG_BYTES) throw new DecryptError('truncated');
  const iv = data.subarray(0, V2_NONCE_BYTES);
  const tag = data.subarray(data.length - V2_TAG_BYTES);
  const body = data.subarray(V2_NONCE_BYTES, data.length - V2_TAG_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', v2Key(keys.secretKey), iv, { authTagLength: V2_TAG_BYTES });
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    throw new DecryptError('auth_failed');
  }
}
