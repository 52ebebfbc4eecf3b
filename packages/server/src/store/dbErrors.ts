/** PostgreSQL error classification by SQLSTATE (both drivers expose `code`), never by message text. */
interface PgErrorLike {
  code?: unknown;
  constraint?: unknown;
}

function pgError(err: unknown): PgErrorLike | null {
  return err !== null && typeof err === 'object' ? (err as PgErrorLike) : null;
}

export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = pgError(err);
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

export function isCheckViolation(err: unknown, constraint?: string): boolean {
  const e = pgError(err);
  return e?.code === '23514' && (constraint === undefined || e.constraint === constraint);
}

export function isForeignKeyViolation(err: unknown): boolean {
  return pgError(err)?.code === '23503';
}

/** A value does not fit its column (e.g. a bigint balance that would pass 2^63 - 1). */
export function isOutOfRange(err: unknown): boolean {
  return pgError(err)?.code === '22003';
}
