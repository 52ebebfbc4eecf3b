/**
 * ISO 20022 status reason codes (ExternalStatusReason1Code) and return reason codes (ExternalReturnReason1Code)
 * a bank gives for a rejected or returned transfer, with their meaning: the payout's status message says both, so
 * that the merchant reads why without a code list.
 */
export const REASON_CODES: Readonly<Record<string, string>> = {
  AC01: 'Incorrect account number',
  AC03: 'Invalid creditor account number',
  AC04: 'Closed account number',
  AC06: 'Blocked account',
  AC13: 'Invalid debtor account type',
  AC14: 'Invalid creditor account type',
  AG01: 'Transaction forbidden on this type of account',
  AG02: 'Invalid bank operation code',
  AM01: 'Zero amount',
  AM02: 'Amount exceeds the allowed maximum',
  AM03: 'Currency not allowed',
  AM04: 'Insufficient funds',
  AM05: 'Duplicate payment',
  AM09: 'Wrong amount',
  AM10: 'Invalid control sum',
  BE01: 'Beneficiary name does not match the account',
  BE04: 'Missing creditor address',
  BE05: 'Unrecognised initiating party',
  CNOR: 'Creditor bank is not registered in the clearing system',
  CURR: 'Incorrect currency',
  CUST: 'Cancellation requested by the debtor',
  DNOR: 'Debtor bank is not registered in the clearing system',
  DS02: 'Order cancelled',
  DT01: 'Invalid date',
  DUPL: 'Duplicate payment',
  ED05: 'Settlement failed',
  FF01: 'Invalid file format',
  FOCR: 'Return following a cancellation request',
  MD07: 'Beneficiary deceased',
  MS02: 'Reason not specified by the beneficiary',
  MS03: 'Reason not specified by the bank',
  NARR: 'Narrative reason given',
  RC01: 'Invalid bank identifier (IFSC)',
  RR01: 'Missing debtor account or identification',
  RR02: 'Missing debtor name or address',
  RR03: 'Missing creditor name or address',
  RR04: 'Regulatory reason',
  TM01: 'Received after the cut-off time',
};

/**
 * The status message of a rejection or return: `AC01 Incorrect account number`, with the bank's additional
 * information when given (a NARR carries its reason there), cut to what a status message holds.
 */
export function describeReason(code: string | null, additional: string | null = null): string {
  const meaning = code ? REASON_CODES[code] : undefined;
  const head = code
    ? meaning
      ? `${code} ${meaning}`
      : `${code} (reason code not known to Payrail)`
    : 'No reason given';
  const text = additional ? `${head}: ${additional}` : head;
  return text.slice(0, 300);
}
