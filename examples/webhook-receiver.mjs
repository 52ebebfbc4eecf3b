#!/usr/bin/env node
// A Payrail webhook receiver with nothing but Node's own modules: verifies the signature (Standard Webhooks,
// or X-Signature), refuses junk without crashing, deduplicates by event id and decrypts `data` (V2 or V1).
//   WEBHOOK_SECRET=whsec_… API_KEY=… SECRET_KEY=… PORT=9000 node examples/webhook-receiver.mjs
// then give http://127.0.0.1:9000/hooks as callback_url / callbackUrl.
import { createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const { WEBHOOK_SECRET, API_KEY, SECRET_KEY } = process.env;
const PORT = Number(process.env.PORT ?? 9000);
const TOLERANCE_SECONDS = 300;
const MAX_BODY_BYTES = 1024 * 1024;
if (!WEBHOOK_SECRET?.startsWith('whsec_')) {
  console.error('usage: WEBHOOK_SECRET=whsec_… [API_KEY=… SECRET_KEY=…] node examples/webhook-receiver.mjs');
  process.exit(2);
}

/** Equal in constant time; false (never an exception) when the lengths differ. */
function same(a, b) {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Standard Webhooks: any `v1,<base64>` entry of webhook-signature matches HMAC(key, id.timestamp.body). */
function standardOk(headers, body) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) {
    return false;
  }
  const key = Buffer.from(WEBHOOK_SECRET.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    return version === 'v1' && value !== undefined && same(Buffer.from(value, 'base64'), expected);
  });
}

/** X-Signature: any `sha256=<hex>` value matches HMAC(the secret string as UTF-8, body). */
function xSignatureOk(headers, body) {
  const header = headers['x-signature'];
  if (typeof header !== 'string') return false;
  const expected = createHmac('sha256', Buffer.from(WEBHOOK_SECRET, 'utf8')).update(body).digest();
  return header.split(',').some((entry) => {
    const m = /^\s*sha256=([0-9a-fA-F]{64})\s*$/.exec(entry);
    return m !== null && same(Buffer.from(m[1], 'hex'), expected);
  });
}

/** `data` in the scheme that created the transaction: V2 (AES-256-GCM) or V1 (AES-256-CBC). */
function decrypt(data) {
  if (!API_KEY || !SECRET_KEY) return null;
  const raw = Buffer.from(data, 'base64');
  try {
    // V2: key = SHA-256(secret key); base64(nonce(12) ‖ ciphertext ‖ tag(16)).
    const key = createHash('sha256').update(SECRET_KEY, 'utf8').digest();
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(raw.length - 16));
    return JSON.parse(Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8'));
  } catch {
    // V1: key = the 32-byte API key, IV = the 16-byte secret key; base64(ciphertext), PKCS#7.
    try {
      const d = createDecipheriv('aes-256-cbc', Buffer.from(API_KEY, 'utf8'), Buffer.from(SECRET_KEY, 'utf8'));
      return JSON.parse(Buffer.concat([d.update(raw), d.final()]).toString('utf8'));
    } catch {
      return null;
    }
  }
}

const seen = new Set();

createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) req.destroy();
    else chunks.push(chunk);
  });
  req.on('error', () => {});
  req.on('end', () => {
    // The exact bytes received: never verify a re-serialised object.
    const body = Buffer.concat(chunks);
    if (req.method !== 'POST' || !(standardOk(req.headers, body) || xSignatureOk(req.headers, body))) {
      res.writeHead(401).end();
      return;
    }
    let event;
    try {
      event = JSON.parse(body.toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    // At least once: the same event may come again (retry, replay); act on it once.
    if (!seen.has(event.id)) {
      seen.add(event.id);
      if (seen.size > 10_000) seen.delete(seen.values().next().value);
      const data = decrypt(event.data);
      console.log(JSON.stringify({ id: event.id, type: event.type, data: data ?? '(set API_KEY and SECRET_KEY)' }));
    }
    res.writeHead(204).end();
  });
}).listen(PORT, '127.0.0.1', () => console.error(`webhooks on http://127.0.0.1:${PORT}/hooks`));
