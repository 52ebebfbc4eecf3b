import type { Merchant } from '../../domain/Merchant.ts';
import type { MerchantScope } from '../../services/MerchantScope.ts';
import { withMerchantNames } from '../consoleListing.ts';

/**
 * Whom a read route reads for, as its authentication decides: the operator (the admin API and the operator
 * console: every merchant's rows, each named with its merchant, and the filters by merchant) or one merchant in
 * its console (its own rows only; another merchant's answer as if they did not exist). The admin and the merchant
 * console routes of a resource call the same read with their scope (`reads/*.ts`).
 */
export type ReadScope = 'operator' | MerchantScope;

/** The scope the services take: none for the operator. */
export const merchantScopeOf = (scope: ReadScope): MerchantScope | undefined =>
  scope === 'operator' ? undefined : scope;

/** Filters of the operator's query only: a merchant's console reads its own rows, whatever its query string says. */
export const operatorFilters = <F extends object>(scope: ReadScope, filters: F): Partial<F> =>
  scope === 'operator' ? filters : {};

/** The views as the scope reads them: the operator's each with its merchant's name. */
export async function scopedViews<T extends { merchant_id: string | null }>(
  scope: ReadScope,
  merchants: { get(id: string): Promise<Merchant | null> },
  views: T[],
): Promise<T[]> {
  return scope === 'operator' ? withMerchantNames(merchants, views) : views;
}
