import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../domain/privateAddress.ts';

export const MAX_CALLBACK_URL_LENGTH = 2048;

/**
 * Which callback URLs webhooks may be sent to: http(s), at most 2048 characters, and, unless private
 * addresses are allowed (the sandbox default), a host that resolves only to public addresses. Checked at
 * initiation and again before each delivery, so a DNS change cannot turn a callback toward the inside.
 */
export class CallbackPolicy {
  constructor(private readonly allowPrivate: boolean) {}

  /** Null when the URL is allowed, else what is wrong with it. */
  async check(url: string): Promise<string | null> {
    if (url.length > MAX_CALLBACK_URL_LENGTH) return `must be at most ${MAX_CALLBACK_URL_LENGTH} characters`;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'must be an absolute http(s) URL';
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http(s) URL';
    if (parsed.username || parsed.password) return 'must not carry credentials';
    if (this.allowPrivate) return null;
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point to a private address';
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await lookup(host, { all: true })).map((a) => a.address);
      } catch {
        return 'host does not resolve';
      }
    }
    return addresses.some(isPrivateAddress) ? 'must not point to a private address' : null;
  }
}
