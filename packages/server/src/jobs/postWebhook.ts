import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from '../services/CallbackPolicy.ts';

/** The most of a receiver's answer body that is read; the rest is cut off with the connection. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * How long an idle connection to a receiver is kept for its next webhook: under the 5 s after which Node's own
 * servers (and many others) close one, so that it is we who close it, not the receiver while we reuse it. A
 * receiver that announces a shorter `Keep-Alive: timeout` gets that less a second (Node's agent reads the hint).
 */
export const IDLE_CONNECTION_MS = 4_000;
/** Receivers (origin and checked addresses) whose connections are kept; the least recently used goes first. */
const MAX_AGENTS = 256;

export interface PostResult {
  status: number;
  /** Bytes of the answer body read (at most MAX_ANSWER_BYTES). */
  bytesRead: number;
}

export interface PostOptions {
  /** The only addresses the connection may use (already checked by the callback policy). */
  addresses: ResolvedAddress[];
  signal: AbortSignal;
}

/**
 * Hands Node's connect step the pre-checked addresses instead of resolving the name again, so the address
 * checked is the address connected to (the URL's host name still goes in `Host` and TLS SNI/verification).
 */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
    const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
    const cb = callback as (err: NodeJS.ErrnoException | null, address: unknown, family?: number) => void;
    if (usable.length === 0) {
      const err: NodeJS.ErrnoException = new Error('no allowed address of the wanted family');
      err.code = 'ENOTFOUND';
      cb(err, options.all ? [] : '');
    } else if (options.all) cb(null, usable);
    else cb(null, (usable[0] as ResolvedAddress).address, (usable[0] as ResolvedAddress).family);
  };
}

/**
 * Kept-alive connections, one pool per receiver: its origin and the exact addresses the callback policy allowed
 * for this attempt. A connection is reused only for an attempt whose checked addresses are the same as those it was
 * opened to, so reuse never reaches an address the policy did not allow for that attempt.
 */
const agents = new Map<string, http.Agent>();

function agentFor(url: URL, addresses: ResolvedAddress[]): http.Agent {
  const key = `${url.protocol}//${url.host}|${addresses
    .map((a) => `${a.family}/${a.address}`)
    .sort()
    .join(',')}`;
  let agent = agents.get(key);
  if (agent) {
    // Most recently used last.
    agents.delete(key);
  } else {
    const options = { keepAlive: true, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' as const };
    agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    // The least recently used receiver is forgotten; its idle connections close by their own timeout and those in
    // use end with their request (destroying the agent would cut them).
    if (agents.size >= MAX_AGENTS) agents.delete(agents.keys().next().value as string);
  }
  agents.set(key, agent);
  return agent;
}

/**
 * POSTs one webhook to the given addresses, over a kept-alive connection to the receiver when one is idle (see
 * `agentFor`). No redirect is followed (a 3xx is just a status), and at most MAX_ANSWER_BYTES of the answer are
 * read: a longer answer is cut off with its connection, which is not reused. One request per attempt: a connection
 * that fails (the receiver closed it, even an idle one as it was reused) fails the attempt, which the retry schedule
 * sends again.
 */
export function postWebhook(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostResult> {
  const payload = Buffer.from(body, 'utf8');
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve, reject) => {
    let settled = false;
    const req = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(payload.length) },
      agent: agentFor(url, options.addresses),
      lookup: pinnedLookup(options.addresses),
      signal: options.signal,
    });
    req.on('error', (err) => {
      if (!settled) reject(err);
      settled = true;
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let bytesRead = 0;
      /** `whole`: the answer was read to its end, so the connection can serve the next webhook. */
      const finish = (whole: boolean) => {
        if (settled) return;
        settled = true;
        resolve({ status, bytesRead });
        if (!whole) {
          res.destroy();
          req.destroy();
        }
      };
      res.on('data', (chunk: Buffer) => {
        bytesRead = Math.min(MAX_ANSWER_BYTES, bytesRead + chunk.length);
        if (bytesRead >= MAX_ANSWER_BYTES) finish(false);
      });
      res.on('end', () => finish(true));
      // The status has arrived: a body cut short (by us, the receiver, or the time limit) does not change it.
      res.on('error', () => finish(false));
      res.on('close', () => finish(false));
    });
    req.end(payload);
  });
}
