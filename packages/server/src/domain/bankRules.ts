import { PayoutCodes, type CodeDef } from '@payrail/protocol';

/**
 * Operator settings that refuse payouts at initiation by the beneficiary's bank (the IFSC's first four
 * letters): banks down for maintenance (4014) and banks that may not be paid (4015).
 */
export interface BankRules {
  down: ReadonlySet<string>;
  blocked: ReadonlySet<string>;
}

/** What the sandbox ships: bank code DOWN is always down, BLOK always blocked. */
export const SANDBOX_BANK_RULES: BankRules = { down: new Set(['DOWN']), blocked: new Set(['BLOK']) };

export function bankRuleRejection(rules: BankRules, ifsc: string): CodeDef | null {
  const bank = ifsc.slice(0, 4);
  if (rules.down.has(bank)) return PayoutCodes.bankDown;
  if (rules.blocked.has(bank)) return PayoutCodes.bankNotAllowed;
  return null;
}
