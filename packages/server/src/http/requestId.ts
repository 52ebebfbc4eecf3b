import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The header a client may name its request with, and in which every answer names the request. */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * A client's own request id is kept when it is 1 to 128 visible ASCII characters (no space, no control character:
 * it is written into the log lines of the request and echoed in a header); anything else is replaced by ours.
 */
const CLIENT_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Request ids unique across instances and restarts without a clock or a coordinator: `req-<instance>-<n>`, where
 * the instance part is 40 random bits drawn at start and `n` counts this process's requests (base 36). Two
 * instances (or one before and after a restart) share a prefix with a chance of about one in a trillion.
 */
export function requestIds(instance = randomBytes(5).toString('hex')): (request: IncomingMessage) => string {
  let count = 0;
  return (request) => {
    const given = request.headers[REQUEST_ID_HEADER];
    if (typeof given === 'string' && CLIENT_ID.test(given)) return given;
    count += 1;
    return `req-${instance}-${count.toString(36)}`;
  };
}
