import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from '../services/CallbackPolicy.ts';

/** The most of a receiver's answer body that is read; the rest is cut off with the connection. */
export const MAX_ANSWER_BYTES = 64 * 1024;

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
 * POSTs one webhook over a fresh connection to the given addresses. No redirect is followed (a 3xx is just a
 * status), and at most MAX_ANSWER_BYTES of the answer are read before the connection is dropped.
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
      agent: false,
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
      const finish = () => {
        if (settled) return;
        settled = true;
        resolve({ status, bytesRead });
        res.destroy();
        req.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        bytesRead = Math.min(MAX_ANSWER_BYTES, bytesRead + chunk.length);
        if (bytesRead >= MAX_ANSWER_BYTES) finish();
      });
      res.on('end', finish);
      // The status has arrived: a body cut short (by us, the receiver, or the time limit) does not change it.
      res.on('error', finish);
      res.on('close', finish);
    });
    req.end(payload);
  });
}
