import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PAGE_SIZE,
  encodeCursor,
  MAX_PAGE_SIZE,
  pageLimit,
  readPage,
  seqCursor,
  textCursor,
} from '../../src/http/pageCursor.ts';

describe('pageLimit', () => {
  it('serves the list default (50) when absent and brings `limit` into 1–200', () => {
    expect(pageLimit(undefined)).toBe(DEFAULT_PAGE_SIZE);
    expect(DEFAULT_PAGE_SIZE).toBe(50);
    expect(pageLimit('7')).toBe(7);
    expect(pageLimit('0')).toBe(1);
    expect(pageLimit('200')).toBe(200);
    expect(pageLimit('201')).toBe(MAX_PAGE_SIZE);
    expect(MAX_PAGE_SIZE).toBe(200);
  });

  it('takes another default and maximum: the bank-file lists’ 100 and 1–500', () => {
    expect(pageLimit(undefined, 100, 500)).toBe(100);
    expect(pageLimit('250', 100, 500)).toBe(250);
    expect(pageLimit('0', 100, 500)).toBe(1);
    expect(pageLimit('500', 100, 500)).toBe(500);
    expect(pageLimit('999999', 100, 500)).toBe(500);
  });
});

describe('readPage', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${n - i}` }));
  const byId = textCursor(
    (key) => /^r[0-9]+$/.test(key),
    (r: { id: string }) => r.id,
  );

  it('asks for one row more than the page, and answers the page with the cursor of its last row', async () => {
    const asked: Array<[number, string | undefined]> = [];
    const page = await readPage({ limit: '2' }, byId, async (limit, key) => {
      asked.push([limit, key]);
      return rows(5).slice(0, limit);
    });
    expect(asked).toEqual([[3, undefined]]);
    expect(page).toEqual({ data: [{ id: 'r5' }, { id: 'r4' }], has_more: true, next_cursor: encodeCursor('r4') });
    await readPage({ cursor: page.next_cursor as string }, byId, async (limit, key) => {
      asked.push([limit, key]);
      return [];
    });
    expect(asked[1]).toEqual([DEFAULT_PAGE_SIZE + 1, 'r4']);
  });

  it('answers the last page without a cursor', async () => {
    const page = await readPage({ limit: '5' }, byId, async (limit) => rows(3).slice(0, limit));
    expect(page).toEqual({ data: rows(3), has_more: false, next_cursor: null });
  });

  it('takes another page size (a CSV export) instead of `limit`', async () => {
    const page = await readPage({ limit: '1' }, byId, async (limit) => rows(5).slice(0, limit), 4);
    expect(page.data).toHaveLength(4);
    expect(page.has_more).toBe(true);
  });

  it('refuses a cursor whose key the list does not write, with 400, before reading', async () => {
    let read = false;
    const bad = readPage({ cursor: encodeCursor('nope') }, byId, async () => {
      read = true;
      return [];
    });
    await expect(bad).rejects.toMatchObject({ code: 'invalid_request' });
    expect(read).toBe(false);
  });
});

describe('seqCursor', () => {
  const seq = seqCursor((row: { seq: bigint }) => row.seq);

  it('reads back an int8 sequence number, and nothing beyond int8', () => {
    expect(seq.keyOf({ seq: 42n })).toBe('42');
    expect(seq.read('42')).toBe(42n);
    expect(seq.read('9223372036854775807')).toBe(9_223_372_036_854_775_807n);
    expect(seq.read('9223372036854775808')).toBeNull();
    expect(seq.read('9999999999999999999')).toBeNull();
    expect(seq.read('-1')).toBeNull();
    expect(seq.read('1e3')).toBeNull();
  });
});
