import { ID_PREFIX, type IdKind } from '@payrail/protocol';
import { ulidFactory } from './ulidFactory.ts';

const ulid = ulidFactory();

/** A new service identifier: type prefix + ULID, time-ordered (docs/merchant/api-reference.md, "Basics"). */
export function newId(kind: IdKind, now: number): string {
  return ID_PREFIX[kind] + ulid(now);
}

/** Console identifiers (not part of the merchant interface): operators `OP…` and credit requests `CR…`. */
export function newConsoleId(prefix: 'OP' | 'CR', now: number): string {
  return prefix + ulid(now);
}
