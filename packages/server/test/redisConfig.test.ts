import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { parseSentinels } from '../src/redisConfig.ts';

describe('PAYRAIL_REDIS_SENTINELS', () => {
  it.each([
    ['10.0.0.1:26379', [{ host: '10.0.0.1', port: 26379 }]],
    [
      'sentinel-a:26379, sentinel-b.internal:26380 ,sentinel-c',
      [
        { host: 'sentinel-a', port: 26379 },
        { host: 'sentinel-b.internal', port: 26380 },
        { host: 'sentinel-c', port: 26379 },
      ],
    ],
    [
      '[::1]:5000,[fd00::2]',
      [
        { host: '::1', port: 5000 },
        { host: 'fd00::2', port: 26379 },
      ],
    ],
  ])('%s → %j', (raw, expected) => {
    expect(parseSentinels('PAYRAIL_REDIS_SENTINELS', raw)).toEqual(expected);
  });

  it.each(['', ' , ', 'host:0', 'host:65536', 'host:port', '::1:26379', 'redis://host:26379', 'a b:1', '[::1'])(
    'refuses %j at start',
    (raw) => {
      expect(() => parseSentinels('PAYRAIL_REDIS_SENTINELS', raw)).toThrow(ConfigError);
    },
  );

  it('configures Sentinel with the default master name, and no password unless given', () => {
    const config = loadConfig({ PAYRAIL_REDIS_SENTINELS: 's1:26379,s2:26379' });
    expect(config.redisSentinel).toEqual({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
      name: 'mymaster',
    });
    expect(config.redisUrl).toBeUndefined();
  });

  it('takes the master name and both passwords', () => {
    const config = loadConfig({
      PAYRAIL_REDIS_SENTINELS: 's1',
      PAYRAIL_REDIS_SENTINEL_NAME: 'payrail-redis',
      PAYRAIL_REDIS_PASSWORD: 'node-secret',
      PAYRAIL_REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
    });
    expect(config.redisSentinel).toEqual({
      sentinels: [{ host: 's1', port: 26379 }],
      name: 'payrail-redis',
      password: 'node-secret',
      sentinelPassword: 'sentinel-secret',
    });
  });

  it('is off when unset: REDIS_URL (or no Redis) as before', () => {
    expect(loadConfig({}).redisSentinel).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'redis://r:6379' })).toMatchObject({ redisUrl: 'redis://r:6379' });
    expect(loadConfig({ REDIS_URL: 'redis://r:6379' }).redisSentinel).toBeUndefined();
  });

  it('refuses REDIS_URL and Sentinel together, rather than ignore one', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis://r:6379', PAYRAIL_REDIS_SENTINELS: 's1:26379' })).toThrow(
      /PAYRAIL_REDIS_SENTINELS: set together with REDIS_URL/,
    );
  });

  it.each(['PAYRAIL_REDIS_SENTINEL_NAME', 'PAYRAIL_REDIS_PASSWORD', 'PAYRAIL_REDIS_SENTINEL_PASSWORD'])(
    'refuses %s without PAYRAIL_REDIS_SENTINELS',
    (name) => {
      expect(() => loadConfig({ [name]: 'x' })).toThrow(new RegExp(`^${name}: set without PAYRAIL_REDIS_SENTINELS`));
    },
  );

  it('refuses a master name that is not one', () => {
    expect(() => loadConfig({ PAYRAIL_REDIS_SENTINELS: 's1', PAYRAIL_REDIS_SENTINEL_NAME: 'my master' })).toThrow(
      ConfigError,
    );
  });
});
