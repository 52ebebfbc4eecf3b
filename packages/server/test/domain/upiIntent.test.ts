import { describe, expect, it } from 'vitest';
import { upiIntentUrl, type UpiIntent } from '../../src/domain/upiIntent.ts';

const TXN = 'CT01JD3K8Q5W2V7X9Y0Z1A2B3C4D';
const base: UpiIntent = { payeeVpa: 'shop@okbank', payeeName: 'Shop', amount: 25050n, txnId: TXN, remarks: 'Order 42' };

/** The link's query as a UPI app (or URLSearchParams) reads it. */
function params(url: string): URLSearchParams {
  const parsed = new URL(url);
  expect(parsed.protocol).toBe('upi:');
  expect(parsed.host + parsed.pathname).toBe('pay');
  return parsed.searchParams;
}

describe('upiIntentUrl', () => {
  it('keeps the @ of the payee address literal (some UPI apps do not decode %40)', () => {
    expect(upiIntentUrl(base)).toContain('pa=shop@okbank&');
    expect(upiIntentUrl({ ...base, remarks: 'a@b' })).toContain('tn=a@b&');
  });

  it('carries pa, pn, am, tr, tn and cu in the NPCI order', () => {
    const url = upiIntentUrl(base);
    expect(url.startsWith('upi://pay?')).toBe(true);
    const p = params(url);
    expect([...p.keys()]).toEqual(['pa', 'pn', 'am', 'tr', 'tn', 'cu']);
    expect(Object.fromEntries(p)).toEqual({
      pa: 'shop@okbank',
      pn: 'Shop',
      am: '250.50',
      tr: TXN,
      tn: 'Order 42',
      cu: 'INR',
    });
  });

  it.each([
    [100n, '1.00'],
    [10_000_000n, '100000.00'],
    [12_345_607n, '123456.07'],
    [1n, '0.01'],
  ])('writes %s paise as am=%s (two fraction digits, no float)', (paise, text) => {
    expect(params(upiIntentUrl({ ...base, amount: paise })).get('am')).toBe(text);
  });

  it.each([
    'Invoice #7 & tip',
    'a+b=c',
    '50% off; 100/100?',
    'name@domain',
    'percent %20 literal',
    'unicode ₹ café 日本',
    'quotes \' " and (parens)!*',
    'new\nline',
  ])('percent-encodes remarks %j so that they round-trip exactly', (remarks) => {
    const url = upiIntentUrl({ ...base, remarks });
    const query = url.slice('upi://pay?'.length);
    // Every separator in the query is one of ours: five & between six pairs, one = per pair.
    expect(query.split('&')).toHaveLength(6);
    for (const pair of query.split('&')) expect(pair.split('=')).toHaveLength(2);
    expect(url).not.toMatch(/[ #+\n]/);
    expect(params(url).get('tn')).toBe(remarks);
  });

  it('encodes spaces as %20, not +', () => {
    const url = upiIntentUrl({ ...base, payeeName: 'Corner Shop', remarks: 'two words' });
    expect(url).toContain('pn=Corner%20Shop');
    expect(url).toContain('tn=two%20words');
  });

  it('round-trips a payee name and address with reserved characters', () => {
    const p = params(upiIntentUrl({ ...base, payeeName: 'Rao & Sons #1', payeeVpa: 'rao.sons-1@okhdfc' }));
    expect(p.get('pn')).toBe('Rao & Sons #1');
    expect(p.get('pa')).toBe('rao.sons-1@okhdfc');
  });

  it('leaves tn out when there are no remarks', () => {
    const p = params(upiIntentUrl({ ...base, remarks: '' }));
    expect(p.has('tn')).toBe(false);
    expect([...p.keys()]).toEqual(['pa', 'pn', 'am', 'tr', 'cu']);
  });
});
