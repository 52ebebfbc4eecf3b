import { describe, expect, it } from 'vitest';
import { ConfigError, defaultPublicUrl, loadConfig } from '../src/config.ts';

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
