import { ConfigError } from './configError.ts';
import type { VirtualAccountSettings } from './domain/virtualAccount.ts';
import type { Mode } from './settingTypes.ts';

export type { VirtualAccountSettings };

/** The sandbox's collection bank (docs/merchant/funding-a-wallet.md). */
export const SANDBOX_VA_IFSC = 'SBOX0VA0001';

/**
 * PAYRAIL_VA_PREFIX (1 to 6 digits, default 9988) and PAYRAIL_VA_IFSC (default SBOX0VA0001 in sandbox mode; in live
 * mode unset until the operator names its collection bank, and no virtual account is shown until then).
 */
export function loadVirtualAccounts(env: NodeJS.ProcessEnv, mode: Mode): VirtualAccountSettings {
  const prefix = env.PAYRAIL_VA_PREFIX?.trim() || '9988';
  if (!/^[0-9]{1,6}$/.test(prefix)) throw new ConfigError('PAYRAIL_VA_PREFIX', 'expected 1 to 6 digits, like 9988');
  const raw = env.PAYRAIL_VA_IFSC?.trim().toUpperCase();
  if (raw && !/^[A-Z]{4}0[A-Z0-9]{6}$/.test(raw)) {
    throw new ConfigError('PAYRAIL_VA_IFSC', 'expected an IFSC like HDFC0001234');
  }
  return { prefix, ifsc: raw || (mode === 'sandbox' ? SANDBOX_VA_IFSC : null) };
}
