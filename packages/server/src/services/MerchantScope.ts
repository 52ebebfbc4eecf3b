/**
 * Whose rows a read may see: one merchant's (the merchant console), or, when a read is given none, every
 * merchant's (the operator). A row outside the scope is answered like a row that does not exist, so that a
 * merchant cannot tell another merchant's id from an unknown one.
 */
export interface MerchantScope {
  readonly merchantId: string;
}

/** Whether a row of `merchantId` is within the scope (any row is, with no scope). */
export const inScope = (scope: MerchantScope | undefined, merchantId: string | null): boolean =>
  scope === undefined || scope.merchantId === merchantId;

/** A list query narrowed to the scope: its merchant replaces any merchant filter the query had. */
export const scopedQuery = <Q extends { merchantId?: string }>(query: Q, scope: MerchantScope | undefined): Q =>
  scope === undefined ? query : { ...query, merchantId: scope.merchantId };
