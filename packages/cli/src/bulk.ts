import { open, readFile, stat } from 'node:fs/promises';
import {
  AuthenticationError,
  ConfigurationError,
  PAYMENT_MODES,
  PayrailError,
  type PaymentMode,
  type Payout,
  type PayoutInitiateInput,
  type Payrail,
} from '@payrail/sdk';
import { CsvError, csvLine, parseCsv } from './csv.ts';
import { Exit, UsageError } from './exitCodes.ts';
import type { Output } from './output.ts';

export interface BatchOptions {
  file: string;
  out?: string;
  wallet?: string;
  mode: PaymentMode;
  concurrency: number;
  /** true: always draw; false: never; undefined: when stderr is a terminal. */
  progress?: boolean;
}

/** Columns of the input and the names they may go by. */
const COLUMNS = {
  senderId: ['sender_id', 'senderid'],
  amount: ['amount'],
  name: ['beneficiary_name', 'name'],
  account: ['account_number', 'beneficiary_acc_number', 'account'],
  ifsc: ['ifsc', 'beneficiary_ifsc'],
  mode: ['payment_mode', 'mode'],
  wallet: ['wallet_id', 'wallet'],
  remarks: ['remarks'],
  callbackUrl: ['callback_url'],
} as const;
type Column = keyof typeof COLUMNS;
const REQUIRED: Column[] = ['senderId', 'amount', 'name', 'account', 'ifsc'];

export const RESULT_HEADER = ['line', 'sender_id', 'outcome', 'transaction_id', 'status', 'amount', 'code', 'message'];
/** `sent` and `rejected` are settled; `error` (temporary: network, server, rate limit, bank down) is retried. */
export type RowOutcome = 'sent' | 'rejected' | 'error';

interface Row {
  line: number;
  senderId: string;
  input?: PayoutInitiateInput;
  problem?: string;
}

function readRows(text: string, options: BatchOptions): Row[] {
  let records;
  try {
    records = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvError) throw new UsageError(`${options.file}: ${err.message}`);
    throw err;
  }
  const [header, ...body] = records;
  if (!header) throw new UsageError(`${options.file}: empty file (a header row is required)`);
  const names = header.fields.map((f) => f.trim().toLowerCase());
  const index = {} as Record<Column, number>;
  for (const [column, aliases] of Object.entries(COLUMNS) as [Column, readonly string[]][]) {
    index[column] = names.findIndex((n) => aliases.includes(n));
  }
  const missing = REQUIRED.filter((c) => index[c] < 0).map((c) => COLUMNS[c][0]);
  if (missing.length > 0) throw new UsageError(`${options.file}: missing column(s) ${missing.join(', ')}`);
  if (index.wallet < 0 && !options.wallet) {
    throw new UsageError(`${options.file}: no wallet_id column; give --wallet (or PAYRAIL_WALLET_ID)`);
  }
  return body.map(({ line, fields }) => {
    const get = (c: Column) => (index[c] >= 0 ? (fields[index[c]] ?? '').trim() : '');
    const senderId = get('senderId');
    const mode = (get('mode') || options.mode).toUpperCase();
    const walletId = get('wallet') || options.wallet || '';
    const problems = [
      !senderId && 'sender_id is empty',
      !(PAYMENT_MODES as readonly string[]).includes(mode) &&
        `payment_mode ${JSON.stringify(mode)} is not IMPS, NEFT or RTGS`,
    ].filter(Boolean);
    if (problems.length > 0) return { line, senderId, problem: problems.join('; ') };
    const input: PayoutInitiateInput = {
      senderId,
      walletId,
      paymentMode: mode as PaymentMode,
      amount: get('amount'),
      beneficiary: { name: get('name'), accountNumber: get('account'), ifsc: get('ifsc') },
    };
    if (get('remarks')) input.remarks = get('remarks');
    if (get('callbackUrl')) input.callbackUrl = get('callbackUrl');
    return { line, senderId, input };
  });
}

/** The settled outcome of each sender_id in an earlier result file (the last line of a sender_id wins). */
async function readResults(path: string): Promise<Map<string, RowOutcome>> {
  const done = new Map<string, RowOutcome>();
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (text === null || text.trim() === '') return done;
  const [header, ...rows] = parseCsv(text);
  const names = header?.fields ?? [];
  const sender = names.indexOf('sender_id');
  const outcome = names.indexOf('outcome');
  if (sender < 0 || outcome < 0) {
    throw new UsageError(`${path} exists but is not a payrail result file; choose another --out`);
  }
  for (const { fields } of rows) {
    const id = fields[sender];
    if (id) done.set(id, fields[outcome] as RowOutcome);
  }
  return done;
}

class ProgressBar {
  private last = 0;
  constructor(
    private readonly enabled: boolean,
    private readonly total: number,
  ) {}

  draw(counts: { sent: number; rejected: number; error: number }, force = false): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (!force && now - this.last < 100) return;
    this.last = now;
    const done = counts.sent + counts.rejected + counts.error;
    const width = 30;
    const filled = this.total === 0 ? width : Math.round((done / this.total) * width);
    const pct = this.total === 0 ? 100 : Math.floor((done / this.total) * 100);
    process.stderr.write(
      `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${this.total} ${String(pct).padStart(3)}%` +
        `  sent ${counts.sent}  rejected ${counts.rejected}  errors ${counts.error}\x1b[K`,
    );
  }

  end(): void {
    if (this.enabled) process.stderr.write('\n');
  }
}

/**
 * Sends every row of a CSV file, `concurrency` at a time, appending each outcome to the result file as it
 * completes. The result file is the resume state: a second run skips sender_ids already sent or rejected and
 * sends the rest again; the sender_id makes that safe (an already created payout is found, not paid twice).
 * Returns the exit code.
 */
export async function sendBatch(payrail: Payrail, out: Output, options: BatchOptions): Promise<number> {
  const text = await readFile(options.file, 'utf8').catch((err: Error) => {
    throw new UsageError(`cannot read ${options.file}: ${err.message}`);
  });
  const rows = readRows(text, options);
  const resultPath = options.out ?? `${options.file.replace(/\.csv$/i, '')}.results.csv`;
  const previous = await readResults(resultPath);
  const settled = (id: string) => previous.get(id) === 'sent' || previous.get(id) === 'rejected';
  const todo = rows.filter((r) => !r.senderId || !settled(r.senderId));
  const skipped = rows.length - todo.length;

  const exists = await stat(resultPath).then(
    (s) => s.size > 0,
    () => false,
  );
  const handle = await open(resultPath, 'a');
  let writing = Promise.resolve();
  const record = (values: unknown[]) => {
    writing = writing.then(() => handle.write(csvLine(values)).then(() => undefined));
    return writing;
  };
  if (!exists) await record(RESULT_HEADER);

  const counts = { sent: 0, rejected: 0, error: 0 };
  const outcomes = new Map(previous);
  const bar = new ProgressBar(options.progress ?? Boolean(process.stderr.isTTY), todo.length);
  out.note(
    `Sending ${todo.length} payout(s) from ${options.file}` +
      (skipped ? ` (${skipped} already done, skipped)` : '') +
      `; results in ${resultPath}`,
  );
  bar.draw(counts, true);

  let stopping = false;
  let fatal: unknown;
  const onSigint = () => {
    if (stopping) process.exit(Exit.interrupted);
    stopping = true;
  };
  process.on('SIGINT', onSigint);

  const settle = async (row: Row, outcome: RowOutcome, p: Payout | undefined, code: unknown, message: string) => {
    counts[outcome]++;
    if (row.senderId) outcomes.set(row.senderId, outcome);
    await record([
      row.line,
      row.senderId,
      outcome,
      p?.transactionId,
      p?.status,
      p?.amount ?? row.input?.amount,
      code,
      message,
    ]);
    bar.draw(counts);
  };

  let next = 0;
  const worker = async () => {
    while (!stopping && fatal === undefined && next < todo.length) {
      const row = todo[next++] as Row;
      if (!row.input) {
        await settle(row, 'rejected', undefined, 'INVALID_ROW', row.problem ?? 'invalid row');
        continue;
      }
      try {
        // 'return': a payout that an interrupted run created is found and recorded, not refused or paid twice.
        const payout = await payrail.payouts.initiate(row.input, { onDuplicate: 'return' });
        await settle(row, 'sent', payout, '', '');
      } catch (err) {
        if (err instanceof AuthenticationError || err instanceof ConfigurationError || !(err instanceof PayrailError)) {
          // Every other row would fail the same way: stop, and leave this row to the next run.
          fatal ??= err;
          return;
        }
        await settle(row, err.retryable ? 'error' : 'rejected', undefined, err.code, err.message);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  } finally {
    process.off('SIGINT', onSigint);
    await writing;
    await handle.close();
    bar.draw(counts, true);
    bar.end();
  }
  if (fatal !== undefined) throw fatal;

  const notSent = rows.filter((r) => outcomes.get(r.senderId) !== 'sent' || !r.senderId).length;
  const summary = {
    file: options.file,
    results: resultPath,
    rows: rows.length,
    skipped,
    sent: counts.sent,
    rejected: counts.rejected,
    errors: counts.error,
    notSent,
    interrupted: stopping,
  };
  out.result(summary, () =>
    [
      `${rows.length} row(s): ${counts.sent} sent, ${counts.rejected} rejected, ${counts.error} error(s), ${skipped} skipped (done before).`,
      stopping
        ? `Interrupted: run the same command again to send the remaining rows.`
        : notSent > 0
          ? `${notSent} row(s) not sent; see ${resultPath}. Rows with outcome "error" are sent again when you rerun.`
          : `Every row is sent. Results: ${resultPath}`,
    ].join('\n'),
  );
  if (stopping) return Exit.interrupted;
  return notSent > 0 ? Exit.partial : Exit.ok;
}
