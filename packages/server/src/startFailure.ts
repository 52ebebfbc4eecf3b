import { DatabaseUnavailable } from './domain/DatabaseUnavailable.ts';

interface SocketError {
  code?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  message?: unknown;
  errors?: unknown;
}

/** host:port of a postgres:// URL, never its user or password; 5432 when the URL names no port. */
function databaseHost(databaseUrl: string | undefined): string | null {
  if (!databaseUrl) return null;
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
  } catch {
    return null;
  }
}

/** Where the connection went (the socket's own address when it has one) and why it failed, in a word if possible. */
function describeReason(reason: unknown, databaseUrl: string | undefined): { at: string | null; cause: string } {
  const err = (reason ?? {}) as SocketError;
  // A host that resolves to several addresses fails with one error per address (AggregateError): the first tells.
  const first = Array.isArray(err.errors) ? ((err.errors[0] ?? {}) as SocketError) : err;
  const address = typeof first.address === 'string' ? first.address : null;
  const at = address ? `${address}:${String(first.port ?? '')}` : databaseHost(databaseUrl);
  const code = typeof err.code === 'string' ? err.code : typeof first.code === 'string' ? first.code : null;
  const message = typeof err.message === 'string' && err.message ? err.message : String(reason);
  return { at, cause: code ?? message };
}

/**
 * The error a failed start reports (`payrail: failed to start: …`): a database that cannot be reached names the
 * address it tried and the cause (`database unavailable at 127.0.0.1:5999 (ECONNREFUSED)`), so that an operator
 * knows which setting or server to look at; the URL's user and password never appear. Other errors as they are.
 */
export function startFailure(err: unknown, databaseUrl: string | undefined): unknown {
  if (!(err instanceof DatabaseUnavailable)) return err;
  const { at, cause } = describeReason(err.reason, databaseUrl);
  const described = new Error(`database unavailable${at ? ` at ${at}` : ''} (${cause})`, { cause: err });
  return described;
}
