import type { BankCredit } from '../../domain/bankCredit.ts';
import type { BankStatement } from './bankStatement.ts';
import type { Notification } from './camt054.ts';

/**
 * The credits of a bank file as the deposits read them (domain/bankCredit.ts): booked credits that are not money
 * sent back (a return is a payout's, BankFileEntries), with the bank's reference as the UTR (its ClrSysRef, else its
 * AcctSvcrRef; in MT940 a UTR written in :86:, else the bank reference), the creditor account and the remittance
 * information. Whether one names a virtual account is the deposits' to decide.
 */
export function creditsOfNotification(notification: Notification): BankCredit[] {
  const credits: BankCredit[] = [];
  for (const t of notification.transactions) {
    if (t.direction !== 'CRDT' || t.isReturn || t.entryStatus !== 'BOOK' || !t.parties) continue;
    credits.push({
      amount: t.amount,
      currency: t.currency,
      utr: t.clearingReference ?? t.accountServicerReference,
      creditorAccount: t.parties.creditorAccount,
      remittance: t.parties.remittance,
      remitterName: t.parties.remitterName,
      remitterAccount: t.parties.remitterAccount,
      remitterIfsc: t.parties.remitterIfsc,
    });
  }
  return credits;
}

/** The booked credits of statements (camt.053, MT940), reversals and returns left out. */
export function creditsOfStatements(statements: readonly BankStatement[]): BankCredit[] {
  const credits: BankCredit[] = [];
  for (const s of statements) {
    for (const entry of s.entries) {
      if (entry.status !== 'BOOK' || entry.direction !== 'credit' || entry.reversal) continue;
      for (const t of entry.transactions) {
        if (t.isReturn) continue;
        credits.push({
          amount: t.amount,
          currency: t.currency ?? entry.currency ?? s.currency,
          utr: t.utrs[0] ?? null,
          creditorAccount: t.parties?.creditorAccount ?? null,
          remittance: t.remittance,
          remitterName: t.parties?.remitterName ?? null,
          remitterAccount: t.parties?.remitterAccount ?? null,
          remitterIfsc: t.parties?.remitterIfsc ?? null,
        });
      }
    }
  }
  return credits;
}
