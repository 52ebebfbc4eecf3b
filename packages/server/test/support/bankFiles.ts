/** The settings of a test server whose payouts go out as bank files (docs/operator/bank-files.md), fast cut-offs. */
export const BANKFILE_ENV = {
  PAYRAIL_CONNECTOR: 'bankfile',
  PAYRAIL_BANKFILE_CUTOFFS: 'every 200ms',
  PAYRAIL_BANKFILE_SCAN: '200ms',
  PAYRAIL_BANKFILE_DEBTOR_NAME: 'Payrail Test Payouts',
  PAYRAIL_BANKFILE_DEBTOR_ACCOUNT: '50100012345678',
  PAYRAIL_BANKFILE_DEBTOR_IFSC: 'HDFC0000123',
  PAYRAIL_BANKFILE_INITIATING_PARTY: 'Payrail Test',
};
