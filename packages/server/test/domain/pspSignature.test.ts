import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkPspSignature, signPspNotification } from '../../src/domain/pspSignature.ts';

const SECRET = 'psp-secret-0123456789abcdef0123456789';
const BODY = '{"txnId":"CT00000000000000000000000000","status":"SUCCESS"}';
const NOW = 1_700_000_000;

describe('PSP notification signature', () => {
  it('is the documented recipe: hex HMAC-SHA256 of "<t>.<body>" keyed with the secret as UTF-8', () => {
    const expected = createHmac('sha256', SECRET).update(`${NOW}.${BODY}`).digest('hex');
    expect(signPspNotification(SECRET, BODY, NOW)).toBe(`t=${NOW},v1=${expected}`);
    expect(checkPspSignature(SECRET, `t=${NOW},v1=${expected}`, Buffer.from(BODY), NOW)).toBe('ok');
  });

  it('accepts 300 s of clock difference either way, not 301', () => {
    for (const skew of [-300, 0, 300]) {
      expect(checkPspSignature(SECRET, signPspNotification(SECRET, BODY, NOW + skew), Buffer.from(BODY), NOW)).toBe(
        'ok',
      );
    }
    for (const skew of [-301, 301, -NOW]) {
      const header = signPspNotification(SECRET, BODY, NOW + skew);
      expect(checkPspSignature(SECRET, header, Buffer.from(BODY), NOW), String(skew)).toBe('expired');
    }
  });

  it('refuses another body, another secret, another timestamp under the same MAC', () => {
    const header = signPspNotification(SECRET, BODY, NOW);
    expect(checkPspSignature(SECRET, header, Buffer.from(`${BODY} `), NOW)).toBe('mismatch');
    expect(checkPspSignature(`${SECRET}x`, header, Buffer.from(BODY), NOW)).toBe('mismatch');
    const moved = header.replace(`t=${NOW}`, `t=${NOW + 1}`);
    expect(checkPspSignature(SECRET, moved, Buffer.from(BODY), NOW)).toBe('mismatch');
  });

  it('accepts any matching v1 among several, upper-case hex, spaces and unknown keys', () => {
    const good = signPspNotification(SECRET, BODY, NOW).split('v1=')[1] as string;
    const header = ` t=${NOW} , v0=abc, v1=${'0'.repeat(64)}, v1=${good.toUpperCase()} `;
    expect(checkPspSignature(SECRET, header, Buffer.from(BODY), NOW)).toBe('ok');
  });

  it('tells a missing header from a malformed one', () => {
    const sig = 'a'.repeat(64);
    expect(checkPspSignature(SECRET, undefined, Buffer.from(BODY), NOW)).toBe('missing');
    expect(checkPspSignature(SECRET, '  ', Buffer.from(BODY), NOW)).toBe('missing');
    for (const header of [
      `v1=${sig}`,
      `t=${NOW}`,
      `t=${NOW},v1=${sig.slice(1)}`,
      `t=-${NOW},v1=${sig}`,
      `t=${NOW}.5,v1=${sig}`,
      `t=${NOW},t=${NOW},v1=${sig}`,
      `t=${NOW},v1=${sig},garbage`,
      `sha256=${sig}`,
      `t=${NOW},v1=${sig},${'x=y,'.repeat(300)}`,
    ]) {
      expect(checkPspSignature(SECRET, header, Buffer.from(BODY), NOW), header.slice(0, 40)).toBe('malformed');
    }
  });

  it('signs raw bytes, not a re-serialisation (non-ASCII bodies included)', () => {
    const body = Buffer.from('{"reason":"भुगतान विफल"}', 'utf8');
    const header = signPspNotification(SECRET, body, NOW);
    expect(checkPspSignature(SECRET, header, body, NOW)).toBe('ok');
    expect(
      checkPspSignature(SECRET, header, Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 1)), NOW),
    ).toBe('mismatch');
  });
});
