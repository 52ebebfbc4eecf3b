import { formatPaise } from '@payrail/protocol';

export interface UpiIntent {
  payeeVpa: string;
  payeeName: string;
  amount: bigint;
  txnId: string;
  remarks: string;
}

/**
 * A UPI deep link (NPCI linking specification): pa payee address, pn payee name, am amount, tr transaction
 * reference, tn note, cu currency. Every value is percent-encoded, spaces as %20 (what UPI apps parse).
 */
export function upiIntentUrl(intent: UpiIntent): string {
  const params: [string, string][] = [
    ['pa', intent.payeeVpa],
    ['pn', intent.payeeName],
    ['am', formatPaise(intent.amount)],
    ['tr', intent.txnId],
    ...(intent.remarks ? ([['tn', intent.remarks]] as [string, string][]) : []),
    ['cu', 'INR'],
  ];
  return `upi://pay?${params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`;
}
