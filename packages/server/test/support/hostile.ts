import fc from 'fast-check';

/** Hostile inputs for the property-based fuzz tests: wrong types, boundary lengths and numbers, odd Unicode. */

/** Text that is awkward to store, compare, print or parse. */
export const SPECIAL_TEXT = [
  '',
  ' ',
  '\t\n\r',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'a\ud83d',
  '\udc00\ud800',
  '\u202eevil\u202c',
  '\u200f\u0627\u0644\u0639\u0631\u0628\u064a\u0629',
  'राहुल शर्मा',
  'e\u0301\u0302\u0303',
  'Z\u0337\u0322\u0347a\u0338l\u0334g\u0335o',
  '👩‍👩‍👧‍👦',
  '😀',
  '\ufeff',
  '\uffff',
  '<script>alert(1)</script>',
  "'; DROP TABLE merchants; --",
  '%00',
  '../../etc/passwd',
  'null',
  'true',
  '{}',
  '[]',
  '__proto__',
  'constructor',
  'SBOX0000001',
  'DOWN0000001',
  'BLOK0000001',
  'HDFC0001234',
  'hdfc0001234',
  'HDFC0O01234',
  '100000000001',
  '100000000004',
  '12345678',
  '1234567890123456789',
  'IMPS',
  'imps',
  'NEFT',
  'RTGS',
  'UPI',
  'SUCCESS',
  'FAILED',
  'PENDING',
  'REFUNDED',
  'active',
  'suspended',
  'INTENT',
  'COLLECT',
  'http://127.0.0.1/',
  'https://example.com/hook',
  `https://example.com/${'a'.repeat(2040)}`,
  `https://example.com/${'a'.repeat(2060)}`,
  'javascript:alert(1)',
  'ftp://example.com/',
  'http://',
  'http://[::1]/',
  'http://169.254.169.254/latest/meta-data',
  'name@bank',
  'a@b',
  '@bank',
  `${'a'.repeat(300)}@bank`,
  'PT00000000000000000000000000',
  'PT0000000000000000000000000I',
  'CT00000000000000000000000000',
  'CT0000000000000000000000000',
  'ct00000000000000000000000000',
  'MR00000000000000000000000000',
  'WL00000000000000000000000000',
  'EV00000000000000000000000000',
  '9223372036854775807',
  '9223372036854775808',
  '99999999999999999999',
  '-1',
];

/** Amount text at and around every documented boundary, and forms the contract refuses. */
export const AMOUNT_TEXT = [
  '0',
  '0.00',
  '0.001',
  '0.01',
  '0.99',
  '1',
  '1.0',
  '1.00',
  '1.001',
  '1.005',
  '99.99',
  '199999.99',
  '200000.00',
  '100000.00',
  '100000.01',
  '500000.00',
  '500000.01',
  '1000000.00',
  '1000000.01',
  '100000000.00',
  '100000000.01',
  '92233720368547758.07',
  '92233720368547758.08',
  '99999999999999999.99',
  '9223372036854775807',
  '9223372036854775808',
  '1e2',
  '1E2',
  '1e-2',
  '1e400',
  '-1.00',
  '+1.00',
  '-0',
  ' 1.00',
  '1.00 ',
  '1,000.00',
  '1_000',
  '１.００',
  '١٠٠',
  '0x10',
  '0b1',
  'NaN',
  'Infinity',
  '00001.00',
  '.5',
  '5.',
  '1..0',
  '',
];

export const BOUNDARY_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.01,
  0.001,
  1.005,
  0.1 + 0.2,
  99.999,
  100.1,
  1e2,
  1e21,
  1e308,
  -1e308,
  5e-324,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 63,
  2 ** 64,
  199999.99,
  200000,
  500000,
  500000.01,
  1000000.01,
  100000000.01,
];

/** Lengths at and beyond every documented limit (50 sender_id, 100 name, 255 remarks, 2048 URL, …) and 100 KB. */
export const LENGTHS = [
  0, 1, 8, 9, 18, 19, 20, 21, 26, 27, 28, 29, 32, 33, 40, 41, 50, 51, 100, 101, 200, 201, 255, 256,
];
const LONG_LENGTHS = [2048, 2049, 100 * 1024];

const lengthy = fc
  .tuple(fc.constantFrom(...LENGTHS, ...LONG_LENGTHS), fc.constantFrom('a', '9', 'A', 'é', '😀', ' ', '.'))
  .map(([n, c]) => c.repeat(n));

export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...SPECIAL_TEXT),
  fc.constantFrom(...AMOUNT_TEXT),
  lengthy,
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.stringMatching(/^[A-Za-z0-9._-]{1,60}$/),
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(...BOUNDARY_NUMBERS),
  fc.integer(),
  fc.double({ noNaN: false }),
);

/** Any JSON value an attacker may send where a field is expected. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileText },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
  { weight: 1, arbitrary: fc.array(fc.oneof(hostileText, hostileNumber, fc.constant(null)), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(hostileText, hostileNumber)) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
);

/** `fields` of a valid request, some replaced by hostile values and some removed. */
export function mutated(fields: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc.dictionary(fc.constantFrom(...fields), fc.option(hostileValue, { nil: undefined, freq: 6 }), {
    minKeys: 1,
    maxKeys: 3,
  });
}

/** Percent-encodes every byte of the UTF-8 form (lone surrogates become U+FFFD, as a browser would send). */
export function encodeSegment(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((b) => (/[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16)}`))
    .join('');
}

/** A path segment: hostile text percent-encoded, or a raw malformed encoding. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: hostileText.filter((s) => s !== '').map(encodeSegment) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%2F', '%2e%2e', '..', 'a%20b', '%ff%fe') },
);

/** A query string over `keys`: hostile values, repeated keys (arrays), keys without a value, malformed escapes. */
export function hostileQuery(keys: readonly string[]): fc.Arbitrary<string> {
  const pair = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.tuple(fc.constantFrom(...keys), hostileText).map(([k, v]) => `${k}=${encodeSegment(v)}`),
    },
    { weight: 1, arbitrary: fc.constantFrom(...keys) },
    { weight: 1, arbitrary: fc.constantFrom(...keys).map((k) => `${k}=%zz`) },
    { weight: 1, arbitrary: fc.constantFrom(...keys).map((k) => `${k}[]=x&${k}[]=y`) },
  );
  return fc.array(pair, { maxLength: 4 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
}
