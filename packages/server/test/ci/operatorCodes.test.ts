import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPERATOR_CODE_NAMES, OPERATOR_CODES, isOperatorCode } from '@payrail/protocol';
import { describe, expect, it } from 'vitest';
import { AdminError } from '../../src/http/AdminError.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const REFERENCE = 'docs/operator/admin-api.md';

/** Every file under a folder (relative to the repository root) whose name ends with one of `extensions`. */
function filesUnder(dir: string, extensions: string[]): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, extensions);
    return extensions.some((ext) => entry.name.endsWith(ext)) ? [path] : [];
  });
}

/** A file's text with its comments blanked (line and block comments; string contents are kept). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`\\])\/\/.*$/gm, (m, before: string | undefined) =>
    before === undefined ? m.replace(/[^\n]/g, ' ') : before,
  );
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** The rows of the reference's error table: the first table of its "Errors" section. */
function referenceRows() {
  const markdown = readFileSync(join(ROOT, REFERENCE), 'utf8');
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Errors\n')) ?? '';
  const table = section.split('\n\n').find((block) => block.startsWith('| HTTP |')) ?? '';
  return table
    .split('\n')
    .slice(2)
    .map((line) => {
      const [http = '', code = '', meaning = ''] = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      return { code: /^`([a-z_]+)`$/.exec(code)?.[1] ?? code, http: Number(http), meaning };
    });
}

/**
 * Issue 29: the operator error codes live in one table, protocol's OPERATOR_CODES (code → HTTP status and meaning).
 * AdminError takes a code of that table and its status from it; the reference's error table lists exactly the
 * table; and no source answers, compares or documents a code the table does not have, or a status of its own.
 */
describe('operator error codes (packages/protocol/src/operatorCodes.ts)', () => {
  it('gives every code a status an error has, and AdminError answers it', () => {
    for (const code of OPERATOR_CODE_NAMES) {
      const { http } = OPERATOR_CODES[code];
      expect([code, http >= 400 && http < 600]).toEqual([code, true]);
      expect(new AdminError(code, 'm').status).toBe(http);
    }
    expect(OPERATOR_CODE_NAMES.every((code) => /^[a-z]+(_[a-z]+)*$/.test(code))).toBe(true);
    expect(isOperatorCode('not_found')).toBe(true);
    expect(isOperatorCode('toString')).toBe(false);
    // A code outside the table does not compile.
    // @ts-expect-error not a code of OPERATOR_CODES
    expect(() => new AdminError('no_such_code', 'm')).toThrow();
  });

  it(`is the error table of ${REFERENCE}, row for row`, () => {
    const rows = referenceRows();
    const table = OPERATOR_CODE_NAMES.map((code) => ({ code, ...OPERATOR_CODES[code] }));
    const byCode = (a: { code: string }, b: { code: string }) => a.code.localeCompare(b.code);
    expect(rows.length).toBeGreaterThan(20);
    expect([...rows].sort(byCode)).toEqual([...table].sort(byCode));
  });

  it('is what the operator documents say: a status written beside a code is the table’s', () => {
    const wrong: string[] = [];
    for (const file of filesUnder('docs/operator', ['.md'])) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      // "409 `invalid_state`", "**422** `balance_overflow`", "| 400 | `invalid_statement` |" (not "413 / 415").
      for (const m of text.matchAll(/(?<!\/\s*)\b([45]\d\d)\b(?:\*\*)?(?:\s*\|)?\s+`([a-z][a-z_]*)`/g)) {
        const [, status, code] = m as unknown as [string, string, string];
        if (!isOperatorCode(code)) wrong.push(`${file}:${lineOf(text, m.index)}: ${code} is not an operator code`);
        else if (OPERATOR_CODES[code].http !== Number(status)) {
          wrong.push(`${file}:${lineOf(text, m.index)}: ${code} is ${OPERATOR_CODES[code].http}, not ${status}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('is the only place a code is written beside a status, or where nothing checks it against the table', () => {
    // The server (http/ answers; the services' refusal codes reach AdminError typed), and the CLI.
    const sources = [...filesUnder('packages/server/src', ['.ts']), ...filesUnder('packages/cli/src', ['.ts'])];
    const wrong: string[] = [];
    for (const file of sources) {
      const text = withoutComments(readFileSync(join(ROOT, file), 'utf8'));
      const at = (index: number, why: string) =>
        wrong.push(`${relative(ROOT, join(ROOT, file))}:${lineOf(text, index)}: ${why}`);
      // The status comes from the table: AdminError takes the code alone.
      for (const m of text.matchAll(/new AdminError\(\s*\d/g)) at(m.index, 'AdminError given a status');
      // Every operator error body is AdminError's or sendAdminError's (src/http/AdminError.ts).
      for (const m of text.matchAll(/\berror:\s*\{\s*code:\s*['"`]/g)) at(m.index, 'an error body written by hand');
      // A code written as a property or compared with one is the table's.
      for (const m of text.matchAll(/(?<!typeof [\w.?]*)\bcode\s*(?::|[!=]==?)\s*(['"`])([a-z][a-z0-9_]*)\1/g)) {
        if (!isOperatorCode(m[2])) at(m.index, `${m[2]} is not an operator code`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("is the console's: a code it compares with or refuses with is the table's, with the table's status", () => {
    const wrong: string[] = [];
    for (const file of filesUnder('packages/server/console', ['.js'])) {
      const text = withoutComments(readFileSync(join(ROOT, file), 'utf8'));
      for (const m of text.matchAll(/(?<!typeof [\w.?]*)\bcode\s*(?::|[!=]==?)\s*(['"`])([a-z][a-z0-9_]*)\1/g)) {
        if (!isOperatorCode(m[2])) wrong.push(`${file}:${lineOf(text, m.index)}: ${m[2]} is not an operator code`);
      }
      for (const m of text.matchAll(/new ApiError\(\s*(\d+)\s*,\s*(['"`])([a-z][a-z0-9_]*)\2/g)) {
        const [, status, , code] = m as unknown as [string, string, string, string];
        if (!isOperatorCode(code) || OPERATOR_CODES[code].http !== Number(status)) {
          wrong.push(`${file}:${lineOf(text, m.index)}: ${status} ${code} is not a code of the table with its status`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
