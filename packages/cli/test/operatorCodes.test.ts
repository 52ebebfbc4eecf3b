import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isOperatorCode, OPERATOR_CODE_NAMES, OPERATOR_CODES, type OperatorCode } from '@payrail/protocol';
import { describe, expect, it } from 'vitest';
import { adminErrorFor } from '../src/adminClient.ts';
import { Exit, exitCodeOf } from '../src/exitCodes.ts';

const CLI_DOC = fileURLToPath(new URL('../../../docs/operator/packages-and-cli.md', import.meta.url));

/** The exit code of an admin API refusal with this code, answered with the table's status. */
const exitOf = (code: OperatorCode) => {
  const http = OPERATOR_CODES[code].http;
  return exitCodeOf(adminErrorFor(http, { code, message: 'm', operation: 'admin test', httpStatus: http }));
};

/** The exit codes table of docs/operator/packages-and-cli.md, by HTTP status: what a refusal of each status means. */
const byStatus = (http: number) =>
  http === 401 || http === 403
    ? Exit.auth
    : http === 404
      ? Exit.notFound
      : http === 429 || http >= 500
        ? Exit.unavailable
        : Exit.rejected;

/**
 * Issue 29: the CLI exits on an operator code by the status protocol's OPERATOR_CODES gives it (the classes of
 * adminClient.ts compile only with every status of the table), and what its documentation says of a code is so.
 */
describe("the CLI's exit codes for operator codes", () => {
  it('exits for every code of the table as the exit codes table says for its status, never 1', () => {
    const wrong = OPERATOR_CODE_NAMES.filter((code) => exitOf(code) !== byStatus(OPERATOR_CODES[code].http));
    expect(wrong).toEqual([]);
  });

  it('goes by the code, and by the status only for an answer without one', () => {
    const options = { message: 'm', operation: 'admin test' };
    expect(exitCodeOf(adminErrorFor(409, { ...options, code: 'already_resolved', httpStatus: 409 }))).toBe(4);
    expect(exitCodeOf(adminErrorFor(502, { ...options, code: 'HTTP_502', httpStatus: 502 }))).toBe(Exit.unavailable);
    expect(exitCodeOf(adminErrorFor(404, { ...options, code: 'HTTP_404', httpStatus: 404 }))).toBe(Exit.notFound);
  });

  it('exits as packages-and-cli.md says where it names a code beside an exit code', () => {
    const text = readFileSync(CLI_DOC, 'utf8').replace(/\s+/g, ' ');
    const named: string[] = [];
    // "Exit 4 when the server refuses it: `already_resolved`, …; exit 5 for an unknown exception": each code up to
    // the next exit code.
    for (const [, exit, span] of text.matchAll(/\b[Ee]xit (\d+)\b((?:(?!\b[Ee]xit \d)[^.])*)/g)) {
      for (const [, code] of (span ?? '').matchAll(/`([a-z][a-z_]*)`/g)) {
        if (!isOperatorCode(code)) continue;
        named.push(code);
        expect([code, exitOf(code)]).toEqual([code, Number(exit)]);
      }
    }
    expect(named).toEqual(expect.arrayContaining(['already_resolved', 'action_not_allowed', 'invalid_state']));
  });
});
