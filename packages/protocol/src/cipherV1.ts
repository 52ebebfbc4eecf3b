import { createCipheriv, createDecipheriv } from 'node:crypto';
import { decodeBase64Strict } from './base64.ts';
import { DecryptError } from './DecryptError.ts';
import type { KeyMaterial } from './scheme.ts';

/**
 * V1: AES-256-CBC with PKCS#7 padding; key = the 32 UTF-8 bytes of the API key, IV = the 16 UTF-8 bytes of the
 * secret key; output base64 of the ciphertext. The IV is fixed per merchant by design of the provider interface,
 * which is why V2 is recommended for new integrations.
 */
function keyAndIv(keys: KeyMaterial): { key: Buffer; iv: Buffer } {
  const key = Buffer.from(keys.apiKey, 'utf8');
  const iv = Buffer.from(keys.secretKey, 'utf8');
  if (key.length !== 32 || iv.length !== 16) throw new DecryptError('bad_key');
  return { key, iv };
}

export function encryptV1(plaintext: string, keys: KeyMaterial): string {
  const { key, iv } = keyAndIv(keys);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]).toString('base64');
}

export function decryptV1(encoded: string, keys: KeyMaterial): string {
  const data = decodeBase64Strict(encoded);
  if (data.length === 0 || data.length % 16 !== 0) throw new DecryptError('truncated');
  const { key, iv } = keyAndIv(keys);
  try {
    const decipher = createDecipheriv('aes-256-cbc', key, iv);
    return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
  } catch {
    // A wrong key almost always shows up as bad padding.
    throw new DecryptError('auth_failed');
  }
}
