import { describe, expect, it } from 'vitest';
import { CsvError, csvLine, parseCsv, unguarded } from '../src/csv.ts';

describe('parseCsv', () => {
  it('reads quoted fields, mixed line ends and a BOM, skipping blank lines, with the line each record starts on', () => {
    const rows = parseCsv('\ufeffa,b\r\n\r\n"x\ny","say ""hi"""\n\n3,4\r5,6');
    expect(rows).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 3, fields: ['x\ny', 'say "hi"'] },
      { line: 6, fields: ['3', '4'] },
      { line: 7, fields: ['5', '6'] },
    ]);
  });

  it('refuses a quoted field that never closes, naming a line', () => {
    expect(() => parseCsv('a,b\n"open,1\n')).toThrow(CsvError);
    expect(() => parseCsv('a,b\n"open,1\n')).toThrow(/line \d+: a quoted field is not closed/);
  });
});

describe('csvLine', () => {
  it('quotes what needs it, guards formulas, and reads back to the same values', () => {
    const values = ['plain', 'a,b', 'say "hi"', ' padded ', '=cmd|calc', '-100.00', null, 7];
    const line = csvLine(values);
    expect(line).toBe('plain,"a,b","say ""hi"""," padded ",\'=cmd|calc,-100.00,,7\n');
    const [row] = parseCsv(line);
    expect(row?.fields.map(unguarded)).toEqual([
      'plain',
      'a,b',
      'say "hi"',
      ' padded ',
      '=cmd|calc',
      '-100.00',
      '',
      '7',
    ]);
  });
});
