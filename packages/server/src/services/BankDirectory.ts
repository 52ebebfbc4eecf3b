import { createRequire } from 'node:module';

interface IfscModule {
  validate(code: string): boolean;
}

const require = createRequire(import.meta.url);
// The package ships bank names keyed by the IFSC's first four letters.
const bankNames = require('ifsc/src/banknames.json') as Record<string, string>;

const SANDBOX_BANKS: Record<string, string> = {
  SBOX: 'Payrail Sandbox Bank',
  DOWN: 'Sandbox Bank (down for maintenance)',
  BLOK: 'Sandbox Bank (blocked)',
};

/**
 * Bank facts from Razorpay's offline IFSC data set (`ifsc` package): whether an IFSC names a real branch
 * (required in live mode) and the bank's name.
 */
export class BankDirectory {
  /** The branch list is large, so it is loaded only where it is used (live mode). */
  private readonly ifsc: IfscModule | null;

  constructor(requireRealBranch: boolean) {
    this.ifsc = requireRealBranch ? (require('ifsc') as IfscModule) : null;
  }

  isKnownBranch(code: string): boolean {
    return this.ifsc === null || this.ifsc.validate(code);
  }

  bankName(code: string): string {
    const bank = code.slice(0, 4);
    return bankNames[bank] ?? SANDBOX_BANKS[bank] ?? '';
  }
}
