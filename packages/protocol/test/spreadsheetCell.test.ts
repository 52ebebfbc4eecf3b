import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromSpreadsheetCell, spreadsheetCell } from '../src/spreadsheetCell.ts';

describe('spreadsheetCell', () => {
  it('guards text a spreadsheet would run as a formula', () => {
    for (const text of ['=HYPERLINK("x")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1']) {
      expect(spreadsheetCell(text)).toBe(`'${text}`);
    }
  });

  it('leaves plain text and decimal numbers (a debit of -100.00) as they are', () => {
    for (const text of ['', 'Asha Rao', '100.00', '-100.00', '+5', '2026-11-25T10:00:00.000Z', "O'Brien"]) {
      expect(spreadsheetCell(text)).toBe(text);
    }
  });

  it('is undone exactly by fromSpreadsheetCell, also for text that already starts with an apostrophe', () => {
    expect(spreadsheetCell("'=1")).toBe("''=1");
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(fromSpreadsheetCell(spreadsheetCell(text))).toBe(text);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.stringMatching(/^'*[=+\-@\t\r].*$/), (text) => {
        // A plain decimal number ("-0", "+5") is the documented exception: a spreadsheet reads it as a number.
        fc.pre(!/^[+-]?[0-9]+(\.[0-9]+)?$/.test(text));
        expect(spreadsheetCell(text).startsWith("'")).toBe(true);
      }),
    );
  });
});
