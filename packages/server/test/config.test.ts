import { describe, expect, it } from 'vitest';
import { ConfigError, defaultPublicUrl, loadConfig, parseTrustProxy } from '../src/config.ts';

describe('PAYRAIL_TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
    ['2', 2],
    ['10.0.0.1', ['10.0.0.1']],
    ['10.0.0.0/8, 192.168.1.1,::1,fd00::/8,loopback', ['10.0.0.0/8', '192.168.1.1', '::1', 'fd00::/8', 'loopback']],
  ])('%s → %j', (raw, expected) => {
    expect(parseTrustProxy(raw)).toEqual(expected);
  });

  it.each(['yes please', '10.0.0.1/33', '10.0.0/8', 'proxy.internal', '10.0.0.1,,10.0.0.2'])(
    'refuses %s at start',
    (raw) => {
      expect(() => loadConfig({ PAYRAIL_TRUST_PROXY: raw })).toThrow(ConfigError);
    },
  );

  it('is off by default', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
  });
});

describe('live-mode secret lengths', () => {
  const long = 'x'.repeat(32);
  it.each(['PAYRAIL_ADMIN_TOKEN', 'PAYRAIL_JWT_SECRET'])('%s of 31 characters stops a live start', (name) => {
    expect(() => loadConfig({ PAYRAIL_MODE: 'live', [name]: 'x'.repeat(31) })).toThrow(ConfigError);
    expect(() => loadConfig({ PAYRAIL_MODE: 'live', [name]: 'x'.repeat(31) })).toThrow(/at least 32/);
  });

  it('accepts 32 characters in live mode, and short values in the sandbox', () => {
    const masterKey = Buffer.alloc(32, 1).toString('base64');
    const env = {
      PAYRAIL_MODE: 'live',
      PAYRAIL_ADMIN_TOKEN: long,
      PAYRAIL_JWT_SECRET: long,
      PAYRAIL_MASTER_KEY: masterKey,
    };
    expect(loadConfig(env).adminToken).toBe(long);
    expect(loadConfig({ PAYRAIL_ADMIN_TOKEN: 'short', PAYRAIL_JWT_SECRET: 'short' }).jwtSecret).toBe('short');
  });
});

describe('PAYRAIL_PUBLIC_URL', () => {
  const publicUrl = (value?: string) => loadConfig(value === undefined ? {} : { PAYRAIL_PUBLIC_URL: value }).publicUrl;

  it('is unset by default: the listen address is used once known', () => {
    expect(publicUrl()).toBeUndefined();
    expect(publicUrl('')).toBeUndefined();
  });

  it.each([
    ['https://pay.example.com', 'https://pay.example.com'],
    ['https://pay.example.com/', 'https://pay.example.com'],
    ['https://Pay.Example.com/payrail//', 'https://pay.example.com/payrail'],
    ['http://10.0.0.5:8080/', 'http://10.0.0.5:8080'],
  ])('takes %s as %s (no trailing slash)', (value, expected) => {
    expect(publicUrl(value)).toBe(expected);
  });

  it.each([
    'pay.example.com',
    'ftp://pay.example.com',
    'javascript:alert(1)',
    'https://user:pw@pay.example.com',
    'https://pay.example.com/?x=1',
    'https://pay.example.com/#top',
  ])('refuses %s', (value) => {
    expect(() => publicUrl(value)).toThrow(ConfigError);
    expect(() => publicUrl(value)).toThrow(/PAYRAIL_PUBLIC_URL/);
  });

  it.each([
    ['127.0.0.1', 8080, 'http://127.0.0.1:8080'],
    ['localhost', 3000, 'http://localhost:3000'],
    ['0.0.0.0', 8080, 'http://127.0.0.1:8080'],
    ['::', 8080, 'http://[::1]:8080'],
    ['::1', 9000, 'http://[::1]:9000'],
  ])('defaults from the listen address %s:%i to %s', (host, port, expected) => {
    expect(defaultPublicUrl(host, port)).toBe(expected);
  });
});

describe('performance settings (issue 13)', () => {
  it('prepared statements are on unless PAYRAIL_PG_PREPARED_STATEMENTS turns them off', () => {
    expect(loadConfig({}).pgPreparedStatements).toBe(true);
    expect(loadConfig({ PAYRAIL_PG_PREPARED_STATEMENTS: 'false' }).pgPreparedStatements).toBe(false);
    expect(() => loadConfig({ PAYRAIL_PG_PREPARED_STATEMENTS: 'off-ish' })).toThrow(/PAYRAIL_PG_PREPARED_STATEMENTS/);
  });

  it('the merchant cache bound is 1000 ms by default, 0 turns it off, anything else is refused', () => {
    expect(loadConfig({}).merchantCacheMs).toBe(1000);
    expect(loadConfig({ PAYRAIL_MERCHANT_CACHE_MS: '0' }).merchantCacheMs).toBe(0);
    expect(() => loadConfig({ PAYRAIL_MERCHANT_CACHE_MS: '-5' })).toThrow(/PAYRAIL_MERCHANT_CACHE_MS/);
  });
});
