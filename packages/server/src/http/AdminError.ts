import { OPERATOR_CODES, type OperatorCode } from '@payrail/protocol';
import type { FastifyReply } from 'fastify';

/**
 * An operator API error: `{"error": {"code", "message"}}` (docs/operator/admin-api.md). The code is one of protocol's
 * OPERATOR_CODES, and the HTTP status is the one that table gives it.
 */
export class AdminError extends Error {
  readonly status: number;

  constructor(
    readonly code: OperatorCode,
    message: string,
    /** Sent as Retry-After (a throttled request). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AdminError';
    this.status = OPERATOR_CODES[code].http;
  }

  static notFound(what: string) {
    return new AdminError('not_found', `${what} not found`);
  }

  static invalid(message: string) {
    return new AdminError('invalid_request', message);
  }
}

/** Sends an operator error without throwing: the code's status from the table, and its body. */
export function sendAdminError(reply: FastifyReply, code: OperatorCode, message: string) {
  return reply.code(OPERATOR_CODES[code].http).send({ error: { code, message } });
}
