export type MerchantStatus = 'active' | 'suspended';

export interface Merchant {
  id: string;
  name: string;
  status: MerchantStatus;
  apiKey: string;
  secretKey: string;
  webhookSecret: string;
  /** The secret replaced by the last webhook-secret rotation, still signing until the expiry beside it. */
  previousWebhookSecret: string | null;
  previousWebhookSecretExpiresAt: Date | null;
  credentialsVersion: number;
  /** Allowances in paise; null means unlimited. */
  dailyLimit: bigint | null;
  monthlyLimit: bigint | null;
  collectionCallbackUrl: string | null;
  upiVpa: string | null;
  upiPayeeName: string | null;
  /** docs/merchant/bulk-and-verification.md: `required` makes every initiation verify the beneficiary (4013 below the minimum score). */
  beneficiaryVerification: 'off' | 'required';
  minNameMatchScore: number;
  /** The scheme of a token issued from plain credentials on the V1 token path (which names none itself). */
  defaultScheme: 'v1' | 'v2';
  /** The recipient on tax invoices: registered name (else `name`), GSTIN if any, GST state code of billing. */
  legalName: string | null;
  gstin: string | null;
  billingState: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Wallet {
  id: string;
  merchantId: string;
  balance: bigint;
  /** Its part of the virtual account number (domain/virtualAccount.ts); null for the platform's wallets. */
  vaSeq?: bigint | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The UPI addresses a merchant may collect into in live mode, lower-cased (UPI addresses are case-insensitive):
 * today the one configured address (`upi_vpa`).
 */
export function registeredVpas(merchant: Merchant): string[] {
  return merchant.upiVpa ? [merchant.upiVpa.toLowerCase()] : [];
}
