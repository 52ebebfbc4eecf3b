import { AdminError } from './AdminError.ts';

/**
 * The paging of every list route, written once: a list names its cursor (what a cursor's key is read back as,
 * and which key a row gives) and reads its rows through `readPage`, which clamps `limit`, decodes the cursor,
 * asks for one row more than the page and answers the page shape (`pageSchema` of protocol).
 */

/** Opaque cursors of the list routes: base64url of the last item's sort key. */
export function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

/** A cursor's key as its list reads it back; absent or empty is the first page, one not ours is 400. */
export function decodeCursor<K>(cursor: string | undefined, read: (key: string) => K | null): K | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const key = read(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (key === null) throw AdminError.invalid('cursor is not one this API returned');
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

/** How a list's cursor carries its sort key: written from the page's last row, read back for the next page. */
export interface Cursor<Row, Key> {
  /** The key of a row (what the next page's cursor carries). */
  keyOf(row: Row): string;
  /** A key read back as the list's query takes it; null for a key `keyOf` never writes. */
  read(key: string): Key | null;
}

/** A cursor whose key is text the list takes as it is (an id), when `valid` says it is one. */
export const textCursor = <Row>(valid: (key: string) => boolean, keyOf: (row: Row) => string): Cursor<Row, string> => ({
  keyOf,
  read: (key) => (valid(key) ? key : null),
});

const INT8_MAX = 9_223_372_036_854_775_807n;

/**
 * A cursor whose key is a row's int8 sequence number: a key beyond int8 is not one we issued (and would overflow
 * the query).
 */
export const seqCursor = <Row>(seqOf: (row: Row) => bigint): Cursor<Row, bigint> => ({
  keyOf: (row) => String(seqOf(row)),
  read: (key) => (/^[0-9]{1,19}$/.test(key) && BigInt(key) <= INT8_MAX ? BigInt(key) : null),
});

/**
 * One page of a list: `limit` clamped (`pageLimit`; a route may serve another, like a CSV export's), the cursor
 * decoded, `rows` asked for one row more than the page (with the key to go on from: undefined on the first page)
 * so that the page knows whether there is a next one, and the page's shape.
 */
export async function readPage<Row, Key>(
  query: { limit?: string; cursor?: string },
  cursor: Cursor<Row, Key>,
  rows: (limit: number, key: Key | undefined) => Promise<Row[]>,
  limit = pageLimit(query.limit),
) {
  const key = decodeCursor(query.cursor, (text) => cursor.read(text));
  return pageOf(await rows(limit + 1, key), limit, (row) => cursor.keyOf(row));
}
