import { spreadsheetCell } from '@payrail/protocol';
import { stringify } from 'csv-stringify/sync';

export type CsvValue = string | number | bigint | boolean | null | undefined;

/**
 * The one CSV writer of the server's answers (RFC 4180: CRLF, fields with a comma, quote or line break quoted,
 * quotes doubled), every text cell guarded against spreadsheet formulas. Booleans are written `true` / `false`
 * and empty values as nothing, as the JSON answers beside these files say them.
 */
export function csvText(rows: CsvValue[][]): string {
  return stringify(rows, {
    record_delimiter: 'windows',
    cast: {
      string: spreadsheetCell,
      boolean: (value) => String(value),
      bigint: (value) => String(value),
      number: (value) => String(value),
    },
  });
}
