#!/usr/bin/env node
// Encrypts or decrypts a Payrail payload from the shell, with nothing but Node's own crypto.
//   SECRET_KEY=... node examples/crypto.mjs v2 encrypt '{"a":1}'
//   SECRET_KEY=... node examples/crypto.mjs v2 decrypt '<base64>'
//   API_KEY=... SECRET_KEY=... node examples/crypto.mjs v1 encrypt|decrypt '<text>'
// V2: AES-256-GCM, key = SHA-256(secret key), output base64(nonce(12) ‖ ciphertext ‖ tag(16)).
// V1: AES-256-CBC (PKCS#7), key = the 32-byte API key, IV = the 16-byte secret key, output base64(ciphertext).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const [scheme, mode, text] = process.argv.slice(2);
const secret = process.env.SECRET_KEY;
if (!['v1', 'v2'].includes(scheme) || !['encrypt', 'decrypt'].includes(mode) || text === undefined || !secret) {
  console.error('usage: SECRET_KEY=… [API_KEY=…] node examples/crypto.mjs v1|v2 encrypt|decrypt <text>');
  process.exit(2);
}

if (scheme === 'v2') {
  const key = createHash('sha256').update(secret, 'utf8').digest();
  if (mode === 'encrypt') {
    const nonce = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key, nonce);
    const body = Buffer.concat([c.update(text, 'utf8'), c.final()]);
    console.log(Buffer.concat([nonce, body, c.getAuthTag()]).toString('base64'));
  } else {
    const raw = Buffer.from(text, 'base64');
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(raw.length - 16));
    console.log(Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8'));
  }
} else {
  const key = Buffer.from(process.env.API_KEY ?? '', 'utf8');
  const iv = Buffer.from(secret, 'utf8');
  if (mode === 'encrypt') {
    const c = createCipheriv('aes-256-cbc', key, iv);
    console.log(Buffer.concat([c.update(text, 'utf8'), c.final()]).toString('base64'));
  } else {
    const d = createDecipheriv('aes-256-cbc', key, iv);
    console.log(Buffer.concat([d.update(Buffer.from(text, 'base64')), d.final()]).toString('utf8'));
  }
}
