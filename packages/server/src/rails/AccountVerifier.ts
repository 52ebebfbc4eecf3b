/**
 * Bank-side account verification (docs/merchant/bulk-and-verification.md): whether an account exists and can be credited, and the
 * holder's name as the bank knows it (usually found with a penny drop). Kept apart from BankConnector, which moves
 * money: a deployment may verify through a different provider than the one that pays, or not at all.
 */
export interface AccountLookup {
  status: 'VALID' | 'INVALID';
  /** The account holder's name at the bank; empty when the account is INVALID. */
  nameAtBank: string;
  /** The bank reference of the verification (the penny drop's UTR); empty when there is none. */
  utr: string;
}

export interface AccountVerifier {
  readonly name: string;
  verifyAccount(accountNumber: string, ifsc: string, nameGiven: string): Promise<AccountLookup>;
}
