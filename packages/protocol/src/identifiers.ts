/** Service-issued identifiers: a two-letter type prefix and a ULID (docs/merchant/api-reference.md, "Basics"). */
export const ID_PREFIX = {
  merchant: 'MR',
  wallet: 'WL',
  payout: 'PT',
  collection: 'CT',
  event: 'EV',
  verification: 'BV',
  settlement: 'ST',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ULID_BODY = '[0-9A-HJKMNP-TV-Z]{26}';

export const ID_PATTERN: Record<IdKind, RegExp> = {
  merchant: new RegExp(`^MR${ULID_BODY}$`),
  wallet: new RegExp(`^WL${ULID_BODY}$`),
  payout: new RegExp(`^PT${ULID_BODY}$`),
  collection: new RegExp(`^CT${ULID_BODY}$`),
  event: new RegExp(`^EV${ULID_BODY}$`),
  verification: new RegExp(`^BV${ULID_BODY}$`),
  settlement: new RegExp(`^ST${ULID_BODY}$`),
};

export function isId(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN[kind].test(value);
}

/** Merchant-chosen sender_id / senderId: 1–50 characters of A-Z a-z 0-9 . _ - */
export const SENDER_ID_PATTERN = /^[A-Za-z0-9._-]{1,50}$/;

export function isSenderId(value: unknown): value is string {
  return typeof value === 'string' && SENDER_ID_PATTERN.test(value);
}
