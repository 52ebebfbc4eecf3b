import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { masterKeyId, SecretBox, SecretUnreadable } from '../../src/store/SecretBox.ts';

const K1 = Buffer.alloc(32, 1);
const K2 = Buffer.alloc(32, 2);

describe('SecretBox', () => {
  it('seals as pr1:<key id>:<base64>, opens it back, and never seals the same way twice', () => {
    const box = SecretBox.withKeys(K1);
    const a = box.seal('whsec_abc', 'merchant:M1');
    expect(a).toMatch(new RegExp(`^pr1:${masterKeyId(K1)}:[A-Za-z0-9+/]+=*$`));
    expect(masterKeyId(K1)).toMatch(/^[0-9a-f]{8}$/);
    expect(box.seal('whsec_abc', 'merchant:M1')).not.toBe(a);
    expect(box.open(a, 'merchant:M1')).toBe('whsec_abc');
  });

  it('refuses a value moved to another row, altered, truncated, or under an unknown key', () => {
    const box = SecretBox.withKeys(K1);
    const a = box.seal('secret', 'merchant:M1');
    expect(() => box.open(a, 'merchant:M2')).toThrow(SecretUnreadable);
    const altered = a.slice(0, -4) + (a.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(() => box.open(altered, 'merchant:M1')).toThrow(/does not verify/);
    expect(() => box.open(a.slice(0, 20), 'merchant:M1')).toThrow(SecretUnreadable);
    expect(() => SecretBox.withKeys(K2).open(a, 'merchant:M1')).toThrow(/neither PAYRAIL_MASTER_KEY/);
    expect(() => SecretBox.plain().open(a, 'merchant:M1')).toThrow(/PAYRAIL_MASTER_KEY is not set/);
  });

  it('during a rotation opens values under either key, seals under the new one, and looks up under both', () => {
    const old = SecretBox.withKeys(K1);
    const rotating = SecretBox.withKeys(K2, K1);
    expect(rotating.open(old.seal('x', 'c'), 'c')).toBe('x');
    expect(rotating.needsReseal(old.seal('x', 'c'))).toBe(true);
    expect(rotating.needsReseal(rotating.seal('x', 'c'))).toBe(false);
    expect(rotating.needsReseal('plain')).toBe(true);
    expect(rotating.lookupHashes('key')).toEqual(
      expect.arrayContaining([rotating.lookupHash('key'), old.lookupHash('key'), SecretBox.plain().lookupHash('key')]),
    );
    expect(old.lookupHash('key')).not.toBe(rotating.lookupHash('key'));
  });

  it('the plain box stores values as they are, and reads plain values with any box', () => {
    expect(SecretBox.plain().seal('abc', 'c')).toBe('abc');
    expect(SecretBox.plain().needsReseal('abc')).toBe(false);
    expect(SecretBox.withKeys(K1).open('abc', 'c')).toBe('abc');
  });
});

describe('PAYRAIL_MASTER_KEY', () => {
  const live = { PAYRAIL_MODE: 'live' };
  it('is required in live mode, optional in the sandbox', () => {
    expect(() => loadConfig(live)).toThrow(/PAYRAIL_MASTER_KEY: required in live mode/);
    expect(loadConfig({}).masterKey).toBeUndefined();
    expect(loadConfig({ ...live, PAYRAIL_MASTER_KEY: K1.toString('base64') }).masterKey).toEqual(K1);
  });

  it.each(['short', Buffer.alloc(31).toString('base64'), Buffer.alloc(33).toString('base64'), 'not base64!!'])(
    'refuses %j',
    (value) => {
      expect(() => loadConfig({ PAYRAIL_MASTER_KEY: value })).toThrow(ConfigError);
    },
  );

  it('PAYRAIL_MASTER_KEY_PREVIOUS needs PAYRAIL_MASTER_KEY and must differ from it', () => {
    expect(() => loadConfig({ PAYRAIL_MASTER_KEY_PREVIOUS: K1.toString('base64') })).toThrow(/without/);
    const same = { PAYRAIL_MASTER_KEY: K1.toString('base64'), PAYRAIL_MASTER_KEY_PREVIOUS: K1.toString('base64') };
    expect(() => loadConfig(same)).toThrow(/same key/);
  });
});
