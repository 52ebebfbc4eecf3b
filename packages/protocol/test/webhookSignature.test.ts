import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from '../src/index.ts';

const KEY_BYTES = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
const SECRET = `whsec_${KEY_BYTES.toString('base64')}`;
const ID = 'EV01JD3K8Q5W2V7X9Y0Z1A2B3C4D';
const BODY = JSON.stringify({ id: ID, type: 'payout.success', created_at: '2025-11-05T10:00:00.000Z', data: 'abc=' });

/** docs/merchant/webhooks.md, computed independently: v1,base64(HMAC-SHA256(base64decode(secret after whsec_), id.ts.body)). */
function referenceSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

describe('webhook signatures', () => {
  it('signs with the documented headers and the independently computed signature', () => {
    const at = new Date(1_762_336_800_000); // 2025-11-05T10:00:00Z
    const headers = signWebhook(SECRET, ID, at, BODY);
    expect(headers).toEqual({
      'webhook-id': ID,
      'webhook-timestamp': '1762336800',
      'webhook-signature': referenceSignature(SECRET, ID, 1_762_336_800, BODY),
    });
    // A fixed published value, so that a change to the scheme cannot pass silently.
    expect(headers['webhook-signature']).toBe('v1,U0Kf3zhw+KluSNAI0QOYYIA5rhtKT3Lpp73DNOC6NjM=');
  });

  it('truncates the timestamp to whole seconds', () => {
    const headers = signWebhook(SECRET, ID, new Date(1_762_336_800_999), BODY);
    expect(headers['webhook-timestamp']).toBe('1762336800');
    expect(headers['webhook-signature']).toBe(referenceSignature(SECRET, ID, 1_762_336_800, BODY));
  });

  it('signs the exact UTF-8 body', () => {
    const body = JSON.stringify({ note: '₹ नमस्ते' });
    const headers = signWebhook(SECRET, ID, new Date(1_762_336_800_000), body);
    expect(headers['webhook-signature']).toBe(referenceSignature(SECRET, ID, 1_762_336_800, body));
  });

  it('verifies what it signed, with our verifier and with the standardwebhooks library', () => {
    const headers = signWebhook(SECRET, ID, new Date(), BODY);
    expect(verifyWebhook(SECRET, BODY, headers)).toEqual(JSON.parse(BODY));
    expect(new Webhook(SECRET).verify(BODY, { ...headers })).toEqual(JSON.parse(BODY));
  });

  it('verifies a signature computed independently, with header names in any case', () => {
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'Webhook-Id': ID,
      'Webhook-Timestamp': String(ts),
      'Webhook-Signature': referenceSignature(SECRET, ID, ts, BODY),
    };
    expect(verifyWebhook(SECRET, BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it('refuses a tampered body', () => {
    const headers = signWebhook(SECRET, ID, new Date(), BODY);
    expect(() => verifyWebhook(SECRET, BODY.replace('payout.success', 'payout.failed'), headers)).toThrow();
    expect(() => verifyWebhook(SECRET, `${BODY} `, headers)).toThrow();
  });

  it('refuses a tampered id or timestamp', () => {
    const headers = signWebhook(SECRET, ID, new Date(), BODY);
    expect(() => verifyWebhook(SECRET, BODY, { ...headers, 'webhook-id': `${ID}X` })).toThrow();
    const ts = String(Number(headers['webhook-timestamp']) - 1);
    expect(() => verifyWebhook(SECRET, BODY, { ...headers, 'webhook-timestamp': ts })).toThrow();
  });

  it('refuses another secret', () => {
    const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const headers = signWebhook(other, ID, new Date(), BODY);
    expect(() => verifyWebhook(SECRET, BODY, headers)).toThrow();
  });

  it('refuses a signature older than the five-minute tolerance, even if correct', () => {
    const old = new Date(Date.now() - 10 * 60 * 1000);
    const headers = signWebhook(SECRET, ID, old, BODY);
    expect(headers['webhook-signature']).toBe(
      referenceSignature(SECRET, ID, Number(headers['webhook-timestamp']), BODY),
    );
    expect(() => verifyWebhook(SECRET, BODY, headers)).toThrow();
  });

  it('refuses missing headers', () => {
    const headers = signWebhook(SECRET, ID, new Date(), BODY);
    expect(() => verifyWebhook(SECRET, BODY, { ...headers, 'webhook-signature': undefined })).toThrow();
  });

  it('signs exactly as the Standard Webhooks library does, for any secret, id, time and body (and rotations)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc
            .tuple(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.boolean())
            .map(([bytes, prefixed]) => (prefixed ? 'whsec_' : '') + Buffer.from(bytes).toString('base64')),
          { minLength: 1, maxLength: 3 },
        ),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        (secrets, id, ms, body) => {
          const at = new Date(ms);
          const expected = secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' ');
          expect(signWebhook(secrets, id, at, body)['webhook-signature']).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a malformed or empty secret as the library does', () => {
    for (const bad of ['whsec_', 'whsec_not base64!', '']) {
      expect(() => new Webhook(bad)).toThrow();
      expect(() => signWebhook(bad, ID, new Date(0), BODY)).toThrow();
    }
  });
});
