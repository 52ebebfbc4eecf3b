/** Minimal RFC 4180 CSV: comma separated, fields optionally in double quotes with "" for a quote, CRLF or LF. */

export interface CsvRow {
  /** 1-based line number where the record starts. */
  line: number;
  fields: string[];
}

export class CsvError extends Error {}

export function parseCsv(text: string): CsvRow[] {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const rows: CsvRow[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  let i = 0;
  const endRecord = () => {
    fields.push(field);
    // Blank lines are skipped.
    if (!(fields.length === 1 && fields[0] === '')) rows.push({ line: rowLine, fields });
    fields = [];
    field = '';
  };
  while (i < src.length) {
    const c = src[i] as string;
    if (quoted) {
      if (c === '"') {
        if (src[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
      i++;
      continue;
    }
    if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && src[i + 1] === '\n') i++;
      endRecord();
      line++;
      rowLine = line;
    } else field += c;
    i++;
  }
  if (quoted) throw new CsvError(`line ${rowLine}: a quoted field is not closed`);
  if (field !== '' || fields.length > 0) endRecord();
  return rows;
}

export function csvField(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (values: unknown[]): string => `${values.map(csvField).join(',')}\n`;
