import { ID_PREFIX, type IdKind } from '@payrail/protocol';
import { ulidFactory } from './ulidFactory.ts';

const ulid = ulidFactory();

/** A new service identifier: type prefix + ULID, time-ordered (docs/merchant/api-reference.md, "Basics"). */
export function newId(kind: IdKind, now: number): string {
  return ID_PREFIX[kind] + ulid(now);
}

/**
 * Console identifiers (not part of the merchant interface): operators `OP…`, credit requests `CR…`, exceptions `EX…`,
 * tax invoices `IV…`, liens `LN…`.
 */
export function newConsoleId(prefix: 'OP' | 'CR' | 'EX' | 'IV' | 'LN', now: number): string {
  return prefix + ulid(now);
}

/** The exceptions queue's identifiers: `EX` + ULID. */
export const EXCEPTION_ID_PATTERN = /^EX[0-9A-HJKMNP-TV-Z]{26}$/;

/** Tax invoices' identifiers: `IV` + ULID. */
export const INVOICE_ID_PATTERN = /^IV[0-9A-HJKMNP-TV-Z]{26}$/;

/** Liens' identifiers: `LN` + ULID. */
export const LIEN_ID_PATTERN = /^LN[0-9A-HJKMNP-TV-Z]{26}$/;
