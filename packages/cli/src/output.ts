import { PayrailError } from '@payrail/sdk';

export type Cell = string | number | boolean | Date | null | undefined;

/** A field of an API answer as a cell: missing (undefined) and null both print as `-`. */
export function cell(value: unknown): Cell {
  return value === null || value === undefined ? null : (value as Cell);
}

export function cellText(value: Cell): string {
  if (value === null || value === undefined || value === '') return '-';
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** A plain text table with a header row, columns padded to their widest cell. */
export function table<T>(rows: T[], columns: [header: string, cell: (row: T) => Cell][]): string {
  const cells = rows.map((row) => columns.map(([, get]) => cellText(get(row))));
  const headers = columns.map(([h]) => h);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] as string).length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n');
}

/** Label/value lines, labels aligned. */
export function keyValues(pairs: [label: string, value: Cell][]): string {
  const width = Math.max(...pairs.map(([l]) => l.length));
  return pairs.map(([l, v]) => `${`${l}:`.padEnd(width + 1)}  ${cellText(v)}`).join('\n');
}

/** Where results and errors go: results on stdout, errors on stderr; JSON with --json, text otherwise. */
export class Output {
  constructor(
    readonly json: boolean,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {}

  /** The result of a command: `value` as JSON, or `human()` as text. */
  result(value: unknown, human: () => string): void {
    this.stdout.write(this.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
  }

  /** One line of a stream (NDJSON with --json). */
  line(value: unknown, human: () => string): void {
    this.stdout.write(this.json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
  }

  /** Progress and notes for people: stderr, never mixed into results. */
  note(text: string): void {
    if (!this.json) this.stderr.write(`${text}\n`);
  }

  /**
   * Something a person should know about a command that succeeded (a merchant created under a name another already
   * has): stderr, a JSON line `{"warning": …}` with --json, so that it shows even when stdout goes to a file.
   */
  warn(value: unknown, text: string): void {
    this.stderr.write(this.json ? `${JSON.stringify({ warning: value })}\n` : `payrail: warning: ${text}\n`);
  }

  /**
   * Errors always go to stderr, JSON with --json: stdout carries results only, so that
   * `payrail merchant create … --json > merchant.json` never writes an error into the file.
   */
  error(err: unknown, exitCode?: number): void {
    const described = describeError(err);
    const extra = annotations.get(err as object);
    if (this.json) {
      const error = {
        ...described,
        ...(extra?.message === undefined ? {} : { message: extra.message }),
        ...extra?.fields,
        ...(exitCode === undefined ? {} : { exitCode }),
      };
      this.stderr.write(`${JSON.stringify({ error })}\n`);
    } else {
      const code = described.code === undefined ? '' : ` [${described.code}]`;
      const message = extra?.message ?? described.message;
      this.stderr.write(`payrail: ${message}${code}\n${extra?.hint ? `${extra.hint}\n` : ''}`);
    }
  }
}

/**
 * What a command adds to an error it lets through: a line of advice for people, fields for --json, and the CLI's own
 * words for what happened when the library's message speaks to programmers (its options, its field names).
 */
const annotations = new WeakMap<object, { hint?: string; fields?: Record<string, unknown>; message?: string }>();

/**
 * Lets `err` through with advice attached (e.g. the generated reference to retry a credit with), without
 * wrapping it: its class still decides the exit code and its JSON fields stay as they are (but `message`, when
 * `message` is given: then people and --json read the CLI's words).
 */
export function annotate<E extends object>(
  err: E,
  hint: string,
  fields: Record<string, unknown> = {},
  message?: string,
): E {
  annotations.set(err, { hint, fields, ...(message === undefined ? {} : { message }) });
  return err;
}

export function describeError(
  err: unknown,
): { type: string; message: string; code?: string | number } & Record<string, unknown> {
  if (err instanceof PayrailError) {
    const json = err.toJSON() as { type: string; message: string; code: string | number } & Record<string, unknown>;
    const existing = (err as { existing?: unknown }).existing;
    return existing === undefined ? json : { ...json, existing };
  }
  if (err instanceof Error) return { type: err.name, message: err.message };
  return { type: 'Error', message: String(err) };
}
