import { fromSpreadsheetCell, spreadsheetCell } from '@payrail/protocol';
import { CsvError as ParseError, parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';

/** RFC 4180 CSV as spreadsheets write it: comma separated, "" for a quote, CRLF, LF or CR line ends, a BOM. */

export interface CsvRow {
  /** 1-based line number where the record starts. */
  line: number;
  fields: string[];
}

export class CsvError extends Error {}

/** Every non-blank record of `text` with the line it starts on; a file whose quotes do not close is refused. */
export function parseCsv(text: string): CsvRow[] {
  let parsed: { record: string[]; info: { lines: number } }[];
  try {
    // With `info`, the parser returns { record, info } objects; its types only know plain records.
    parsed = parse(text, {
      bom: true,
      info: true,
      relax_column_count: true,
      relax_quotes: true,
      // A file edited on several systems mixes line ends; the parser would otherwise keep the first one it sees.
      record_delimiter: ['\r\n', '\n', '\r'],
    }) as unknown as typeof parsed;
  } catch (err) {
    if (err instanceof ParseError && err.code === 'CSV_QUOTE_NOT_CLOSED') {
      throw new CsvError(`line ${err.lines}: a quoted field is not closed`);
    }
    if (err instanceof ParseError) throw new CsvError(`line ${err.lines}: ${err.message}`);
    throw err;
  }
  const rows: CsvRow[] = [];
  let next = 1;
  for (const { record, info } of parsed) {
    // Blank lines are skipped; the parser counts lines to a record's end, so a record starts after the last one.
    if (!(record.length === 1 && record[0] === '')) rows.push({ line: next, fields: record });
    next = info.lines + 1;
  }
  return rows;
}

/**
 * One line of a file the CLI writes (bulk results): quoted when needed or when it has space at either end, text
 * that a spreadsheet would run as a formula guarded (read back with `unguarded`).
 */
export function csvLine(values: unknown[]): string {
  return stringify([values.map((v) => (v === null || v === undefined ? '' : String(v)))], {
    cast: { string: spreadsheetCell },
    quoted_match: /^\s|\s$/,
  });
}

/** A field of a file `csvLine` wrote, as it was before the spreadsheet guard. */
export const unguarded = fromSpreadsheetCell;
