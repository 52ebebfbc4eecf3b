import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signBody, signWebhook, verifyBodySignature } from '../src/index.ts';

const SECRET = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const ID = 'EV01JD3K8Q5W2V7X9Y0Z1A2B3C4D';
const BODY = JSON.stringify({ id: ID, type: 'payout.success', created_at: '2025-11-05T10:00:00.000Z', data: 'abc=' });

/** docs/merchant/webhooks.md, computed independently: hex HMAC-SHA256 keyed with the secret string's UTF-8 bytes. */
const reference = (secret: string, body: string) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');

describe('X-Signature (body HMAC)', () => {
  it('is sha256=<hex HMAC of the exact body, keyed with the whole secret string>', () => {
    expect(signBody(SECRET, BODY)).toBe(`sha256=${reference(SECRET, BODY)}`);
    // A fixed published value, so that a change to the scheme cannot pass silently.
    expect(signBody(SECRET, BODY)).toBe('sha256=8d7ccf189e2bd3a7411ee0548c2df7f6c9813b815ad5cf4b0891e71cbea09192');
    expect(signBody(SECRET, Buffer.from(BODY))).toBe(signBody(SECRET, BODY));
  });

  it('carries one value per secret, comma-separated, and verifies with either', () => {
    const header = signBody([SECRET, OTHER], BODY);
    expect(header).toBe(`sha256=${reference(SECRET, BODY)},sha256=${reference(OTHER, BODY)}`);
    expect(verifyBodySignature(SECRET, BODY, header)).toBe(true);
    expect(verifyBodySignature(OTHER, BODY, header)).toBe(true);
    expect(verifyBodySignature(`${SECRET}x`, BODY, header)).toBe(false);
  });

  it('refuses a changed body, and never throws on a junk header', () => {
    const header = signBody(SECRET, BODY);
    expect(verifyBodySignature(SECRET, `${BODY} `, header)).toBe(false);
    for (const junk of [
      undefined,
      null,
      '',
      'sha256=',
      'sha256=abc',
      'sha1=00',
      header.slice(0, -1),
      'x'.repeat(10_000),
    ]) {
      expect(verifyBodySignature(SECRET, BODY, junk)).toBe(false);
    }
    expect(verifyBodySignature(SECRET, BODY, header.toUpperCase().replace('SHA256=', 'sha256='))).toBe(true);
  });
});

describe('Standard Webhooks signature with several secrets (rotation)', () => {
  it('holds one space-separated v1 entry per secret; the reference library accepts either secret', () => {
    const headers = signWebhook([SECRET, OTHER], ID, new Date(), BODY);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(new Webhook(OTHER).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(signWebhook([SECRET], ID, new Date(0), BODY)).toEqual(signWebhook(SECRET, ID, new Date(0), BODY));
  });
});
