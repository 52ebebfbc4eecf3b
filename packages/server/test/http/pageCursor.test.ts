import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageLimit } from '../../src/http/pageCursor.ts';

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
