import { decryptV1, encryptV1 } from './cipherV1.ts';
import { decryptV2, encryptV2 } from './cipherV2.ts';
import { DecryptError } from './DecryptError.ts';
import type { KeyMaterial, Scheme } from './scheme.ts';

/** Encrypts the JSON text of `value` with the session's scheme. */
export function encryptJson(value: unknown, scheme: Scheme, keys: KeyMaterial): string {
  const text = JSON.stringify(value);
  return scheme === 'v1' ? encryptV1(text, keys) : encryptV2(text, keys);
}

/** Decrypts a payload that must hold a JSON object; anything else is a DecryptError. */
export function decryptJsonObject(encoded: unknown, scheme: Scheme, keys: KeyMaterial): Record<string, unknown> {
  if (typeof encoded !== 'string') throw new DecryptError('bad_base64');
  const text = scheme === 'v1' ? decryptV1(encoded, keys) : decryptV2(encoded, keys);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DecryptError('not_json');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new DecryptError('not_object');
  return value as Record<string, unknown>;
}
