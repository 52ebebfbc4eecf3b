import dns from 'node:dns';
import { isIP } from 'node:net';
import { callbackUrlProblem } from '../domain/callbackUrl.ts';
import { isPrivateAddress } from '../domain/privateAddress.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (the policy filters them). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The operating system's resolver (what `fetch` would use), looked up at call time. */
export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** A callback the policy refuses to connect to; the message says why (it is recorded on the attempt). */
export class EgressRefused extends Error {
  override name = 'EgressRefused';
}

export interface CallbackPolicyOptions {
  /** Replaces the system resolver (tests script DNS answers with it). */
  resolver?: Resolver;
  /** Time limit of one DNS lookup; default 2000 ms. */
  dnsTimeoutMs?: number;
}

const PRIVATE = 'must not point to a private address';

/**
 * Which callback URLs webhooks may be sent to: http(s), at most 2048 characters, and, unless private
 * addresses are allowed (the sandbox default), only public addresses. `check` runs at initiation (early,
 * readable refusal); `addressesFor` runs when a delivery connects, and the dispatcher connects to exactly the
 * addresses it returns, so a DNS answer that changes between the two (rebinding) cannot reach the inside.
 */
export class CallbackPolicy {
  private readonly resolver: Resolver;
  readonly dnsTimeoutMs: number;

  constructor(
    private readonly allowPrivate: boolean,
    options: CallbackPolicyOptions = {},
  ) {
    this.resolver = options.resolver ?? systemResolver;
    this.dnsTimeoutMs = options.dnsTimeoutMs ?? 2000;
  }

  /** Null when the URL is allowed, else what is wrong with it. */
  async check(url: string): Promise<string | null> {
    const problem = callbackUrlProblem(url);
    if (problem || this.allowPrivate) return problem;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost' || host.endsWith('.localhost')) return PRIVATE;
    try {
      const addresses = await this.resolve(host);
      // At initiation a host with any private address is refused outright (a mixed answer is suspicious).
      return addresses.some((a) => isPrivateAddress(a.address)) ? PRIVATE : null;
    } catch (err) {
      return (err as Error).message;
    }
  }

  /**
   * The addresses a delivery to `hostname` may connect to: resolved once (within the DNS time limit), then
   * filtered through the private-address rule. Throws `EgressRefused` when none is left.
   */
  async addressesFor(hostname: string): Promise<ResolvedAddress[]> {
    const host = hostname.replace(/^\[|\]$/g, '');
    if (!this.allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) throw new EgressRefused(PRIVATE);
    const all = await this.resolve(host);
    const allowed = this.allowPrivate ? all : all.filter((a) => !isPrivateAddress(a.address));
    if (allowed.length === 0) throw new EgressRefused(PRIVATE);
    return allowed;
  }

  private async resolve(host: string): Promise<ResolvedAddress[]> {
    const family = isIP(host);
    if (family) return [{ address: host, family: family === 6 ? 6 : 4 }];
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new EgressRefused(`DNS lookup took longer than ${this.dnsTimeoutMs} ms`)),
        this.dnsTimeoutMs,
      );
    });
    try {
      const addresses = await Promise.race([this.resolver(host), timeout]);
      if (addresses.length === 0) throw new EgressRefused('host does not resolve');
      return addresses;
    } catch (err) {
      if (err instanceof EgressRefused) throw err;
      throw new EgressRefused('host does not resolve');
    } finally {
      clearTimeout(timer);
    }
  }
}
