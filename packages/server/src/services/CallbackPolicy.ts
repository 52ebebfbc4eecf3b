import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { callbackUrlProblem } from '../domain/callbackUrl.ts';
import { isPrivateAddress } from '../domain/privateAddress.ts';

/**
 * Which callback URLs webhooks may be sent to: http(s), at most 2048 characters, and, unless private
 * addresses are allowed (the sandbox default), a host that resolves only to public addresses. Checked at
 * initiation and again before each delivery, so a DNS change cannot turn a callback toward the inside.
 */
export class CallbackPolicy {
  constructor(private readonly allowPrivate: boolean) {}

  /** Null when the URL is allowed, else what is wrong with it. */
  async check(url: string): Promise<string | null> {
    const problem = callbackUrlProblem(url);
    if (problem || this.allowPrivate) return problem;
    const parsed = new URL(url);
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
