import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  decryptJsonObject,
  decryptV1,
  decryptV2,
  DecryptError,
  encryptJson,
  encryptV1,
  encryptV2,
  SCHEMES,
  type DecryptFailure,
  type KeyMaterial,
  type Scheme,
} from '../src/index.ts';

/**
 * Published test vectors: docs/merchant/encryption.md shows exactly these values, so that a merchant can check an
 * implementation of either scheme against them. Change one here and the document must change with it.
 */
const VECTOR = {
  apiKey: 'PayrailTestApiKey0123456789ABCDE',
  secretKey: 'PayrailSecret016',
  nonceHex: '000102030405060708090a0b',
  plaintext: '{"sender_id":"ORDER-1001","amount":"100.50","payment_mode":"IMPS"}',
  v1: 'tu5qySTF3ALdMlS1Tq98qBu6XzZFKzT8I4XX/G7PD22qXNvoDFNkUZoPKUX1ju7D90v88neWKcD4mVhDlPduHSaMG/9eF9whjbNGE/N9m30=',
  v2: 'AAECAwQFBgcICQoLvvWv5TesxnOisZokFjRbbNN4u5IK0zf89D4E2aRYztla5wJBeZ3UIKDcCKTnldJxEq6DQed6uUoxaO8E5cjplw5KPYZjuR5zTlDGZvMBVK0fOg==',
} as const;

const keys: KeyMaterial = { apiKey: VECTOR.apiKey, secretKey: VECTOR.secretKey };
const nonce = Buffer.from(VECTOR.nonceHex, 'hex');
const otherKeys: KeyMaterial = { apiKey: 'ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ', secretKey: 'YYYYYYYYYYYYYYYY' };

/** Independent V1: node:crypto directly, straight from docs/merchant/authentication.md. */
function referenceV1(plaintext: string, apiKey: string, secretKey: string): string {
  const c = createCipheriv('aes-256-cbc', Buffer.from(apiKey, 'utf8'), Buffer.from(secretKey, 'utf8'));
  return Buffer.concat([c.update(Buffer.from(plaintext, 'utf8')), c.final()]).toString('base64');
}

/** Independent V2: node:crypto directly, straight from docs/merchant/authentication.md. */
function referenceV2(plaintext: string, secretKey: string, iv: Buffer): string {
  const key = createHash('sha256').update(Buffer.from(secretKey, 'utf8')).digest();
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([c.update(Buffer.from(plaintext, 'utf8')), c.final()]);
  return Buffer.concat([iv, body, c.getAuthTag()]).toString('base64');
}

function referenceDecryptV2(encoded: string, secretKey: string): string {
  const raw = Buffer.from(encoded, 'base64');
  const key = createHash('sha256').update(Buffer.from(secretKey, 'utf8')).digest();
  const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  d.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8');
}

/** Asserts a clean DecryptError with the expected reason and no plaintext or key material in its message. */
function expectDecryptError(fn: () => unknown, reasons: DecryptFailure[]) {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, 'expected a DecryptError').toBeInstanceOf(DecryptError);
  const err = caught as DecryptError;
  expect(reasons).toContain(err.reason);
  expect(err.message).not.toContain(VECTOR.secretKey);
  expect(err.message).not.toContain(VECTOR.apiKey);
  expect(err.message).not.toContain('ORDER-1001');
}

const flipByte = (encoded: string, index: number) => {
  const raw = Buffer.from(encoded, 'base64');
  const i = index < 0 ? raw.length + index : index;
  raw[i] = (raw[i] as number) ^ 0x01;
  return raw.toString('base64');
};

const sliceBytes = (encoded: string, start: number, end?: number) =>
  Buffer.from(encoded, 'base64').subarray(start, end).toString('base64');

describe('published test vectors', () => {
  it('the vector keys have the lengths the schemes need', () => {
    expect(Buffer.byteLength(VECTOR.apiKey, 'utf8')).toBe(32);
    expect(Buffer.byteLength(VECTOR.secretKey, 'utf8')).toBe(16);
    expect(nonce).toHaveLength(12);
  });

  it('V1 ciphertext of the vector is the published one, and an independent AES-256-CBC computes the same', () => {
    expect(encryptV1(VECTOR.plaintext, keys)).toBe(VECTOR.v1);
    expect(referenceV1(VECTOR.plaintext, VECTOR.apiKey, VECTOR.secretKey)).toBe(VECTOR.v1);
    expect(decryptV1(VECTOR.v1, keys)).toBe(VECTOR.plaintext);
  });

  it('V2 ciphertext of the vector is the published one, and an independent AES-256-GCM computes the same', () => {
    expect(encryptV2(VECTOR.plaintext, keys, nonce)).toBe(VECTOR.v2);
    expect(referenceV2(VECTOR.plaintext, VECTOR.secretKey, nonce)).toBe(VECTOR.v2);
    expect(decryptV2(VECTOR.v2, keys)).toBe(VECTOR.plaintext);
  });

  it('V2 output is nonce ‖ ciphertext ‖ 16-byte tag', () => {
    const raw = Buffer.from(VECTOR.v2, 'base64');
    expect(raw.subarray(0, 12).equals(nonce)).toBe(true);
    expect(raw.length).toBe(12 + Buffer.byteLength(VECTOR.plaintext) + 16);
  });

  it('docs/merchant/encryption.md publishes exactly these values', () => {
    const doc = readFileSync(new URL('../../../docs/merchant/encryption.md', import.meta.url), 'utf8');
    for (const value of [VECTOR.apiKey, VECTOR.secretKey, VECTOR.nonceHex, VECTOR.plaintext, VECTOR.v1, VECTOR.v2]) {
      expect(doc).toContain(value);
    }
  });

  it('V1 ciphertext is PKCS#7-padded to whole 16-byte blocks', () => {
    const raw = Buffer.from(VECTOR.v1, 'base64');
    const len = Buffer.byteLength(VECTOR.plaintext);
    expect(raw.length).toBe((Math.floor(len / 16) + 1) * 16);
  });
});

describe('round trips', () => {
  const samples = [
    '{}',
    '{"a":1}',
    JSON.stringify({ name: 'Ünïcødé ₹ नमस्ते 🙂', amount: '1.00' }),
    JSON.stringify({ long: 'x'.repeat(10_000) }),
    // exact block multiple for V1: 16 and 32 bytes
    '{"k":"12345678"}',
    '{"k":"123456789012345678901234"}',
  ];

  it.each(samples)('V1 and V2 return the plaintext (%#)', (plaintext) => {
    expect(decryptV1(encryptV1(plaintext, keys), keys)).toBe(plaintext);
    expect(decryptV2(encryptV2(plaintext, keys), keys)).toBe(plaintext);
  });

  it('our V1 and V2 decrypt what an independent implementation encrypted, and vice versa', () => {
    const plaintext = JSON.stringify({ wallet_id: 'WL01JD3K8Q5W2V7X9Y0Z1A2B3C4D', amount: 250 });
    const iv = Buffer.from('a1b2c3d4e5f6a7b8c9d0e1f2', 'hex');
    expect(decryptV1(referenceV1(plaintext, VECTOR.apiKey, VECTOR.secretKey), keys)).toBe(plaintext);
    expect(decryptV2(referenceV2(plaintext, VECTOR.secretKey, iv), keys)).toBe(plaintext);
    expect(referenceDecryptV2(encryptV2(plaintext, keys), VECTOR.secretKey)).toBe(plaintext);
  });

  it('V2 uses a fresh random nonce each time', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const raw = Buffer.from(encryptV2(VECTOR.plaintext, keys), 'base64');
      seen.add(raw.subarray(0, 12).toString('hex'));
    }
    expect(seen.size).toBe(50);
  });

  it('V2 needs only the secret key', () => {
    const encoded = encryptV2('{"x":1}', { secretKey: VECTOR.secretKey });
    expect(decryptV2(encoded, { secretKey: VECTOR.secretKey })).toBe('{"x":1}');
  });

  it('V2 refuses a nonce that is not 12 bytes', () => {
    expect(() => encryptV2('{}', keys, Buffer.alloc(16))).toThrow(RangeError);
  });

  it.each(SCHEMES)('encryptJson/decryptJsonObject round-trip objects with %s', (scheme: Scheme) => {
    const value = { sender_id: 'A-1', amount: '10.00', nested: { list: [1, 'two', null] }, text: '₹' };
    expect(decryptJsonObject(encryptJson(value, scheme, keys), scheme, keys)).toEqual(value);
  });
});

describe.each(SCHEMES)('decryption fails cleanly with DecryptError (%s)', (scheme) => {
  const enc = (text: string, k = keys) => (scheme === 'v1' ? encryptV1(text, k) : encryptV2(text, k));
  const good = () => enc('{"sender_id":"ORDER-1001","amount":"100.50"}');
  const open = (encoded: unknown, k = keys) => decryptJsonObject(encoded, scheme, k);

  it('accepts the untampered payload (control)', () => {
    expect(open(good())).toEqual({ sender_id: 'ORDER-1001', amount: '100.50' });
  });

  it('truncated by one byte', () => {
    expectDecryptError(() => open(sliceBytes(good(), 0, -1)), ['truncated', 'auth_failed']);
  });

  it('truncated to a whole block or the bare nonce', () => {
    const short = scheme === 'v1' ? sliceBytes(good(), 0, 16) : sliceBytes(good(), 0, 12);
    expectDecryptError(() => open(short), ['truncated', 'auth_failed', 'not_json']);
  });

  it('truncated to nothing', () => {
    expectDecryptError(() => open(''), ['bad_base64', 'truncated']);
  });

  it('decrypted with the wrong key', () => {
    expectDecryptError(() => open(good(), otherKeys), ['auth_failed', 'not_json']);
  });

  it('with a flipped byte at the end (the tag in V2, the padding block in V1)', () => {
    expectDecryptError(() => open(flipByte(good(), -1)), ['auth_failed', 'not_json']);
  });

  it('with a flipped byte in the middle', () => {
    expectDecryptError(() => open(flipByte(good(), 13)), ['auth_failed', 'not_json', 'not_object']);
  });

  it.each(['not base64!', 'YWJj ZGVm', 'YWJjZA=', '====', 'Zm9v\nYmFy', '…é'])('bad base64 %j', (text) => {
    expectDecryptError(() => open(text), ['bad_base64']);
  });

  it.each([42, null, undefined, {}, ['x']])('a payload that is not a string: %j', (value) => {
    expectDecryptError(() => open(value), ['bad_base64']);
  });

  it.each(['hello', '{"a":', "{'a':1}", 'undefined', ''])('plaintext that is not JSON: %j', (text) => {
    expectDecryptError(() => open(enc(text)), ['not_json']);
  });

  it.each(['[1,2]', '42', 'null', '"text"', 'true', '[]'])('JSON that is not an object: %s', (text) => {
    expectDecryptError(() => open(enc(text)), ['not_object']);
  });

  it('a payload of the other scheme', () => {
    const other = scheme === 'v1' ? encryptV2('{"a":1}', keys) : encryptV1('{"a":1}', keys);
    expectDecryptError(() => open(other), ['truncated', 'auth_failed', 'not_json']);
  });
});

describe('V1 key material', () => {
  it('refuses an API key that is not 32 bytes or a secret key that is not 16 bytes', () => {
    expectDecryptError(() => decryptV1(VECTOR.v1, { apiKey: 'short', secretKey: VECTOR.secretKey }), ['bad_key']);
    expectDecryptError(() => decryptV1(VECTOR.v1, { apiKey: VECTOR.apiKey, secretKey: 'short' }), ['bad_key']);
  });
});
