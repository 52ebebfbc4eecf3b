import { encodeTime } from 'ulid';

/** A list's bounds on created_at: the console's IST date filters, as instants. */
export interface CreatedBounds {
  /** Created at or after this instant. */
  createdFrom?: Date;
  /** Created before this instant. */
  createdBefore?: Date;
}

/** SQL conditions on created_at for a range, numbered after the parameters already pushed. */
export function createdRangeWhere(range: CreatedBounds, where: string[], params: unknown[]): void {
  if (range.createdFrom) {
    params.push(range.createdFrom);
    where.push(`created_at >= $${params.length}`);
  }
  if (range.createdBefore) {
    params.push(range.createdBefore);
    where.push(`created_at < $${params.length}`);
  }
}

/**
 * How far an id's time may lie from its row's created_at. Both come from one clock reading (domain/ids.ts, the
 * draft's `now`), so they are equal to the millisecond; the slack only covers ids a clock stepped back once carried
 * forward (the generator before issue 35 kept the later time), and costs an hour of rows at each end of a window.
 */
const ID_TIME_SLACK_MS = 3_600_000;

/**
 * Id bounds that hold every row of a created_at range, for a table whose ids are `prefix` + a ULID made from the
 * clock reading that is also its created_at. A list ordered by id then walks its index from the window's end
 * instead of discarding every newer row; the created_at conditions (createdRangeWhere) still decide exactly.
 */
export function createdIdBoundsWhere(prefix: string, range: CreatedBounds, where: string[], params: unknown[]): void {
  if (range.createdFrom) {
    params.push(prefix + encodeTime(Math.max(0, range.createdFrom.getTime() - ID_TIME_SLACK_MS), 10));
    where.push(`id >= $${params.length}`);
  }
  if (range.createdBefore) {
    params.push(prefix + encodeTime(range.createdBefore.getTime() + ID_TIME_SLACK_MS, 10));
    where.push(`id < $${params.length}`);
  }
}
