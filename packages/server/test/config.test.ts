import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseTrustProxy } from '../src/config.ts';

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
