/**
 * The database cannot be reached or is shutting down (connection refused or lost, connect or query timeout,
 * SQLSTATE classes 08 and 57P, too many connections). A transient condition: requests are answered 5000 with
 * HTTP 503 and background steps are retried, instead of a 500 that looks like a bug.
 */
export class DatabaseUnavailable extends Error {
  constructor(readonly reason: unknown) {
    super('database unavailable');
    this.name = 'DatabaseUnavailable';
  }
}
