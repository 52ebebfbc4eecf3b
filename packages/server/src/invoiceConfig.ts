import { ConfigError } from './configError.ts';
import { gstinProblem, gstinState, isStateCode, normalizeGstin } from './domain/gstin.ts';
import { INVOICE_PREFIX } from './domain/invoice.ts';

/**
 * The operator as the supplier of its tax invoices (PAYRAIL_OPERATOR_*, docs/operator/charging-merchants.md). Each
 * is optional at start; invoices are refused (409 invoice_settings_missing) until all four are set.
 */
export interface InvoiceSupplierSettings {
  legalName?: string;
  /** Checked at start: shape, state code and check character. */
  gstin?: string;
  address?: string;
  /** Two-digit GST state code; the GSTIN's own when both are set. */
  state?: string;
}

const text = (env: NodeJS.ProcessEnv, name: string, max: number): string | undefined => {
  const value = env[name]?.trim();
  if (!value) return undefined;
  if (value.length > max) throw new ConfigError(name, `at most ${max} characters`);
  return value;
};

/** Reads and checks the four PAYRAIL_OPERATOR_* settings: a bad GSTIN or state refuses the start, naming it. */
export function loadInvoiceSupplier(env: NodeJS.ProcessEnv): InvoiceSupplierSettings {
  const legalName = text(env, 'PAYRAIL_OPERATOR_LEGAL_NAME', 200);
  const address = text(env, 'PAYRAIL_OPERATOR_ADDRESS', 500);
  const rawGstin = env.PAYRAIL_OPERATOR_GSTIN?.trim();
  let gstin: string | undefined;
  if (rawGstin) {
    gstin = normalizeGstin(rawGstin);
    const problem = gstinProblem(gstin);
    if (problem) throw new ConfigError('PAYRAIL_OPERATOR_GSTIN', `not a valid GSTIN: ${problem}`);
  }
  const state = env.PAYRAIL_OPERATOR_STATE?.trim() || undefined;
  if (state !== undefined) {
    if (!isStateCode(state)) {
      throw new ConfigError('PAYRAIL_OPERATOR_STATE', 'expected a two-digit GST state code like 27 (Maharashtra)');
    }
    if (gstin && gstinState(gstin) !== state) {
      throw new ConfigError(
        'PAYRAIL_OPERATOR_STATE',
        `is ${state}, but PAYRAIL_OPERATOR_GSTIN is registered in ${gstinState(gstin)} (its first two digits)`,
      );
    }
  }
  return {
    ...(legalName ? { legalName } : {}),
    ...(gstin ? { gstin } : {}),
    ...(address ? { address } : {}),
    ...(state ? { state } : {}),
  };
}

/** PAYRAIL_INVOICE_PREFIX: what invoice numbers start with (`INV/2026-27/000001`). */
export function loadInvoicePrefix(env: NodeJS.ProcessEnv): string {
  const prefix = env.PAYRAIL_INVOICE_PREFIX?.trim() || 'INV';
  if (!INVOICE_PREFIX.test(prefix)) {
    throw new ConfigError('PAYRAIL_INVOICE_PREFIX', 'expected 1 to 10 letters, digits or hyphens, like INV');
  }
  return prefix;
}
