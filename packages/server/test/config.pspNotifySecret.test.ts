import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('PAYRAIL_PSP_NOTIFY_SECRET', () => {
  it('is unset by default (the notification routes do not exist)', () => {
    expect(loadConfig({}).pspNotifySecret).toBeUndefined();
    expect(loadConfig({ PAYRAIL_PSP_NOTIFY_SECRET: '' }).pspNotifySecret).toBeUndefined();
  });

  it('needs at least 32 characters', () => {
    expect(() => loadConfig({ PAYRAIL_PSP_NOTIFY_SECRET: 'x'.repeat(31) })).toThrow(ConfigError);
    expect(loadConfig({ PAYRAIL_PSP_NOTIFY_SECRET: 'x'.repeat(32) }).pspNotifySecret).toBe('x'.repeat(32));
  });
});
