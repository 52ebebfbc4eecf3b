import { randomBytes } from 'node:crypto';

/** 24 random bytes (192 bits) as base64url: 32 characters. */
const TOKEN_BYTES = 24;
export const PAYMENT_PAGE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/**
 * The key of a collection's hosted payment page. Random, never derived from txnId or senderId, so that holding
 * one collection's link tells nothing about another's.
 */
export function newPaymentPageToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

export const isPaymentPageToken = (value: unknown): value is string =>
  typeof value === 'string' && PAYMENT_PAGE_TOKEN_PATTERN.test(value);

/** `${publicUrl}/pay/{token}`: the link merchants hand to their payers. */
export const paymentPageUrl = (publicUrl: string, token: string): string => `${publicUrl}/pay/${token}`;
