import { formatPaise } from '@payrail/protocol';
import { describe, expect, it } from 'vitest';
import { carryBalances, entryDescription, openingTotals, type StatementEntry } from '../../src/domain/statement.ts';
import { csvText } from '../../src/http/csv.ts';
import { statementCsvLines } from '../../src/http/views/statementCsv.ts';

/** The lines as the server's one general CSV writer says them: what the statement's own writer must match. */
const general = (entries: StatementEntry[]) =>
  csvText(
    entries.map((e) => [
      String(e.id),
      e.at.toISOString(),
      e.kind,
      formatPaise(e.amount),
      formatPaise(e.balance),
      e.reference,
      e.payoutId,
      e.collectionId,
      entryDescription(e.kind, e.settlement),
    ]),
  );

const AWKWARD = [
  null,
  '',
  'plain',
  'a,b',
  'say "hi"',
  '=SUM(A1:A9)',
  '+919800000000',
  '-5',
  '-12.50',
  '12.50',
  '@cmd',
  '\tTabbed',
  ' spaced ',
  'ünïcode ₹',
  '"',
  ',',
];

describe('statementCsvLines', () => {
  it('writes the same bytes as csvText, whatever a reference holds', () => {
    const rows = AWKWARD.flatMap((reference, i) => [
      {
        id: BigInt(i + 1),
        at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
        kind: i % 3 === 0 ? 'payout_debit' : i % 3 === 1 ? 'credit' : 'some_new_kind',
        amount: i % 3 === 0 ? -BigInt(1_000 + i) : 9_007_199_254_740_993n + BigInt(i),
        reference,
        payoutId: i % 2 ? reference : `PT${i}`,
        collectionId: i % 2 ? null : reference,
        settlement: i % 4 === 0,
      },
    ]);
    const entries = carryBalances(openingTotals(0n), rows);
    expect(statementCsvLines(entries)).toBe(general(entries));
  });

  it('quotes a lone line break, which csvText leaves bare (csv-stringify quotes only its record delimiter, CRLF)', () => {
    const entries = carryBalances(openingTotals(0n), [
      {
        id: 1n,
        at: new Date(0),
        kind: 'credit',
        amount: 5n,
        reference: 'line\nbreak',
        payoutId: null,
        collectionId: 'cr\rhere',
      },
    ]);
    expect(statementCsvLines(entries)).toBe(
      '1,1970-01-01T00:00:00.000Z,credit,0.05,0.05,"line\nbreak",,"cr\rhere",Wallet credit\r\n',
    );
  });
});
