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
  // '@' stays literal: UPI apps read `pa=name@bank`, and some do not decode %40.
  const encode = (v: string) => encodeURIComponent(v).replace(/%40/g, '@');
  return `upi://pay?${params.map(([k, v]) => `${k}=${encode(v)}`).join('&')}`;
}
