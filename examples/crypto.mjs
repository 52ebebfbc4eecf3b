#!/usr/bin/env node
// Encrypts or decrypts a Payrail payload from the shell, with nothing but Node's own crypto.
//   SECRET_KEY=... node examples/crypto.mjs v2 encrypt '{"a":1}'
//   SECRET_KEY=... node examples/crypto.mjs v2 decrypt '<base64>'
//   API_KEY=... SECRET_KEY=... node examples/crypto.mjs v1 encrypt|decrypt '<text>'
// V2: AES-256-GCM, key = SHA-256(secret key), output base64(nonce(12) ‖ ciphertext ‖ tag(16)).
// V1: AES-256-CBC (PKCS#7), key = the 32-byte API key, IV = the 16-byte secret key, output base64(ciphertext).
// Exit codes: 0 done; 2 usage (arguments, keys missing or of the wrong length); 1 the text cannot be decrypted
// (not base64, too short, another scheme's, another key's or altered). The reason is one line on stderr.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const USAGE = 'usage: SECRET_KEY=… [API_KEY=…] node examples/crypto.mjs v1|v2 encrypt|decrypt <text>';
const fail = (code, message) => {
  console.error(`crypto.mjs: ${message}`);
  process.exit(code);
};

const [scheme, mode, text] = process.argv.slice(2);
const secret = process.env.SECRET_KEY;
if (!['v1', 'v2'].includes(scheme) || !['encrypt', 'decrypt'].includes(mode) || text === undefined) fail(2, USAGE);
if (!secret) fail(2, `SECRET_KEY is not set (the merchant's secret key, 16 characters)\n${USAGE}`);
if (mode === 'decrypt' && ['', 'undefined', 'null'].includes(text.trim())) {
  // What `node -p '….data'` prints when the answer had no `data`: an error answer, or no answer at all.
  fail(1, `nothing to ${mode}: the text is ${JSON.stringify(text)} (did the request fail? print its answer)`);
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** The bytes of a base64 text, or a clear exit when it is not one. */
function base64(value) {
  const compact = value.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.length % 4 === 1) {
    fail(1, `not base64: ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`);
  }
  return Buffer.from(compact, 'base64');
}

if (scheme === 'v2') {
  const key = createHash('sha256').update(secret, 'utf8').digest();
  if (mode === 'encrypt') {
    const nonce = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key, nonce);
    const body = Buffer.concat([c.update(text, 'utf8'), c.final()]);
    console.log(Buffer.concat([nonce, body, c.getAuthTag()]).toString('base64'));
  } else {
    const raw = base64(text);
    if (raw.length < 28) {
      fail(
        1,
        `too short for V2: ${raw.length} bytes, at least 28 (nonce 12 + tag 16)` +
          (raw.length % 16 === 0 && raw.length > 0 ? '; a V1 (AES-256-CBC) text? try v1' : ''),
      );
    }
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(raw.length - 16));
    let plain;
    try {
      plain = Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]);
    } catch {
      fail(
        1,
        'V2 text does not decrypt: another SECRET_KEY, a V1 text (try v1), or the text was altered (its tag does not match)',
      );
    }
    console.log(plain.toString('utf8'));
  }
} else {
  const apiKey = process.env.API_KEY;
  if (!apiKey) fail(2, `API_KEY is not set (V1 needs the merchant's API key, 32 characters)\n${USAGE}`);
  const key = Buffer.from(apiKey, 'utf8');
  const iv = Buffer.from(secret, 'utf8');
  if (key.length !== 32) fail(2, `API_KEY must be 32 bytes for V1 (AES-256 key), it is ${key.length}`);
  if (iv.length !== 16) fail(2, `SECRET_KEY must be 16 bytes for V1 (the IV), it is ${iv.length}`);
  if (mode === 'encrypt') {
    const c = createCipheriv('aes-256-cbc', key, iv);
    console.log(Buffer.concat([c.update(text, 'utf8'), c.final()]).toString('base64'));
  } else {
    const raw = base64(text);
    if (raw.length === 0 || raw.length % 16 !== 0) {
      fail(1, `not a V1 text: ${raw.length} bytes, a V1 text is a non-zero multiple of 16 (a V2 text? try v2)`);
    }
    const d = createDecipheriv('aes-256-cbc', key, iv);
    let plain;
    try {
      plain = Buffer.concat([d.update(raw), d.final()]);
    } catch {
      fail(1, 'V1 text does not decrypt: another API_KEY or SECRET_KEY, a V2 text (try v2), or the text was altered');
    }
    console.log(plain.toString('utf8'));
  }
}
