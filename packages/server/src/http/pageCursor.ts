import { AdminError } from './AdminError.ts';

/** Opaque cursors of the operator list routes: base64url of the last item's sort key. */
export function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined, valid: (key: string) => boolean): string | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!valid(key)) throw AdminError.invalid('cursor is not one this API returned');
  return key;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** The page size a list route serves: `limit` clamped to 1–`max` (200), `fallback` (50) when absent. */
export function pageLimit(limit: string | undefined, fallback = DEFAULT_PAGE_SIZE, max = MAX_PAGE_SIZE): number {
  return Math.min(Math.max(Number(limit ?? fallback), 1), max);
}

/** A page: the items, and the cursor of the next page when there may be one. */
export function pageOf<T>(items: T[], limit: number, keyOf: (item: T) => string) {
  const hasMore = items.length > limit;
  const data = hasMore ? items.slice(0, limit) : items;
  const last = data[data.length - 1];
  return { data, has_more: hasMore, next_cursor: hasMore && last ? encodeCursor(keyOf(last)) : null };
}
