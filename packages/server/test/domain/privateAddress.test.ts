import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/domain/privateAddress.ts';

describe('isPrivateAddress', () => {
  it.each([
    '0.0.0.0',
    '10.0.0.1',
    '10.255.255.255',
    '100.64.0.1',
    '100.127.255.254',
    '127.0.0.1',
    '127.1.2.3',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '198.18.0.1',
    '224.0.0.1',
    '255.255.255.255',
  ])('IPv4 %s is private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '203.0.113.7',
    '9.255.255.255',
    '11.0.0.0',
  ])('IPv4 %s is public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it.each(['::', '::1', 'fc00::1', 'fd12:3456:789a::1', 'fe80::1', 'febf::1', 'ff02::1'])(
    'IPv6 %s is private',
    (address) => {
      expect(isPrivateAddress(address)).toBe(true);
    },
  );

  it.each(['2001:4860:4860::8888', '2606:4700:4700::1111', 'fec0::1'])('IPv6 %s is public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it.each([
    '::ffff:127.0.0.1',
    '::FFFF:10.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a00:1',
    '::ffff:c0a8:101',
    '0:0:0:0:0:ffff:7f00:1',
  ])('IPv4-mapped %s of a private address is private, in any spelling', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['::ffff:8.8.8.8', '::ffff:808:808'])('IPv4-mapped %s of a public address is public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('says false for what is not an IP address (host names are resolved first)', () => {
    for (const value of ['', 'localhost', 'example.com', '127.0.0.1.nip.io', '999.1.1.1', '[::1]']) {
      expect(isPrivateAddress(value)).toBe(false);
    }
  });
});
