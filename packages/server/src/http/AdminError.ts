/** An operator API error: `{"error": {"code", "message"}}` with its HTTP status (docs/operator/admin-api.md). */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Sent as Retry-After (a throttled request). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AdminError';
  }

  static notFound(what: string) {
    return new AdminError(404, 'not_found', `${what} not found`);
  }

  static invalid(message: string) {
    return new AdminError(400, 'invalid_request', message);
  }
}
