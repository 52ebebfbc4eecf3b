/**
 * CSV files Payrail writes (statements, reconciliation reports, the CLI's bulk results) are opened in
 * spreadsheets, which run a cell that starts with = + - @ (or a tab or carriage return some of them strip first)
 * as a formula: a beneficiary name or a bank's remittance text could then run one on an operator's machine
 * (OWASP "CSV injection"). Such a cell gets a leading apostrophe, which spreadsheets show as text.
 *
 * A plain decimal number ("-100.00", a debit in a statement) is a number to a spreadsheet, never a formula, and
 * stays as it is. A value that already starts with apostrophes before such a character gets one more, so that
 * `fromSpreadsheetCell` can undo the guard exactly (the CLI reads its own result files back).
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;
const GUARDED = /^''*[=+\-@\t\r]/;
const DECIMAL = /^[+-]?[0-9]+(\.[0-9]+)?$/;

export function spreadsheetCell(text: string): string {
  return FORMULA_START.test(text) && !DECIMAL.test(text) ? `'${text}` : text;
}

/** The value `spreadsheetCell` was given. */
export function fromSpreadsheetCell(cell: string): string {
  return GUARDED.test(cell) ? cell.slice(1) : cell;
}
