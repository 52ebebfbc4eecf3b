import { roleAllows, type OperatorRole } from './Operator.ts';

/**
 * Who sees full account numbers (docs/operator/console.md, "Who sees full account numbers"): the roles that move
 * money, finance and admin (the admin token is admin). A viewer reads every account number masked to its last
 * four digits. One rule, applied once where the admin API answers, so the console, the CLI and every export
 * made from the API read the same.
 */
export const seesFullAccountNumbers = (role: OperatorRole): boolean => roleAllows(role, 'finance');

/** The fields that hold a bank account number, wherever they sit in an answer (payouts, batches, settlement
 * accounts, allowed remitters, deposits, an exception's reported and held facts). */
export const ACCOUNT_NUMBER_FIELDS: ReadonlySet<string> = new Set([
  'beneficiary_acc_number',
  'account_number',
  'remitter_account',
]);

/** An account number masked to its last four digits: XXXX0001 (a number of four or fewer is masked whole). */
export const maskAccountNumber = (n: string): string => (n.length > 4 ? `XXXX${n.slice(-4)}` : 'XXXX');

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

/** A copy of `value` with every account number field masked; what holds none comes back as it is. */
export function maskAccountNumbers<T>(value: T): T {
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const m = maskAccountNumbers(v);
      if (m !== v) changed = true;
      return m;
    });
    return (changed ? out : value) as T;
  }
  if (!isPlainObject(value)) return value;
  let out: Record<string, unknown> | null = null;
  for (const [key, v] of Object.entries(value)) {
    const m =
      ACCOUNT_NUMBER_FIELDS.has(key) && typeof v === 'string' && v !== ''
        ? maskAccountNumber(v)
        : maskAccountNumbers(v);
    if (m !== v) {
      out ??= { ...value };
      out[key] = m;
    }
  }
  return (out ?? value) as T;
}
