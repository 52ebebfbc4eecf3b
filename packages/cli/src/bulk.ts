import { createHash } from 'node:crypto';
import { open, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { PayoutCodes } from '@payrail/protocol';
import {
  AuthenticationError,
  ConfigurationError,
  ConflictError,
  FINAL_PAYOUT_STATUSES,
  PAYMENT_MODES,
  PayrailError,
  WaitTimeoutError,
  type BulkItemVerdict,
  type BulkResult,
  type BulkStatus,
  type PaymentMode,
  type Payout,
  type PayoutInitiateInput,
  type PayoutStatus,
  type Payrail,
} from '@payrail/sdk';
import { CsvError, csvLine, parseCsv, unguarded } from './csv.ts';
import { Exit, UsageError } from './exitCodes.ts';
import type { Output } from './output.ts';
import { now as clockNow } from './clock.ts';

export interface BatchOptions {
  file: string;
  out?: string;
  wallet?: string;
  mode: PaymentMode;
  /** Print every row's verdict (as a real run would give it now) and send nothing. */
  dryRun?: boolean;
  /** After sending, wait this long (ms) for every sent payout to be final and record the statuses. */
  waitMs?: number;
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

export const RESULT_HEADER = [
  'line',
  'sender_id',
  'outcome',
  'transaction_id',
  'status',
  'amount',
  'code',
  'message',
  'batch_id',
];
/** Rows per bulk request (the API's maximum). */
export const CHUNK_SIZE = 1000;
/** Item codes that may pass later (bank down): the row is sent again on the next run. */
const TEMPORARY_CODES = new Set([PayoutCodes.bankDown.code]);
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

interface Previous {
  outcome: RowOutcome;
  batchId: string;
}

/** The outcome (and batch) of each sender_id in an earlier result file (the last line of a sender_id wins). */
async function readResults(path: string): Promise<Map<string, Previous>> {
  const done = new Map<string, Previous>();
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (text === null || text.trim() === '') return done;
  const [header, ...rows] = resultRows(text);
  const names = header?.fields ?? [];
  const sender = names.indexOf('sender_id');
  const outcome = names.indexOf('outcome');
  const batch = names.indexOf('batch_id');
  if (sender < 0 || outcome < 0) {
    throw new UsageError(`${path} exists but is not a payrail result file; choose another --out`);
  }
  for (const { fields } of rows) {
    const id = fields[sender];
    if (id) done.set(id, { outcome: fields[outcome] as RowOutcome, batchId: batch >= 0 ? (fields[batch] ?? '') : '' });
  }
  return done;
}

/**
 * The batch_id of a chunk, derived from the file and the chunk, so that a rerun after a lost answer sends the same
 * id and gets the batch that did land (4009 with its verdicts) instead of a second one. Rows of the chunk already
 * answered by n earlier batches (kept in the result file) go in the (n+1)-th: `…-r<n>`.
 */
export function chunkBatchId(fileHash: string, chunk: number, earlierBatches: number): string {
  return `csv-${fileHash}-c${chunk}${earlierBatches ? `-r${earlierBatches}` : ''}`;
}

class ProgressBar {
  private last = 0;
  constructor(
    private readonly enabled: boolean,
    private readonly total: number,
  ) {}

  draw(counts: { sent: number; rejected: number; error: number }, force = false): void {
    if (!this.enabled) return;
    const now = clockNow();
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
 * Sends every row of a CSV file through the bulk API, 1,000 rows per request in file order, appending each row's
 * outcome to the result file. The result file is the resume state: a second run skips sender_ids already sent or
 * rejected and sends the rest again under a batch_id derived from the file and the chunk (see chunkBatchId), so
 * nothing is paid twice. With `dryRun` every row's verdict is printed and nothing is sent. Returns the exit code.
 */
export async function sendBatch(payrail: Payrail, out: Output, options: BatchOptions): Promise<number> {
  const text = await readFile(options.file, 'utf8').catch((err: Error) => {
    throw new UsageError(`cannot read ${options.file}: ${err.message}`);
  });
  const rows = readRows(text, options);
  const fileHash = createHash('sha256').update(text).digest('hex').slice(0, 12);
  const chunks = Array.from({ length: Math.ceil(rows.length / CHUNK_SIZE) }, (_, k) =>
    rows.slice(k * CHUNK_SIZE, (k + 1) * CHUNK_SIZE),
  );
  if (options.dryRun) return dryRun(payrail, out, options, chunks, fileHash);

  const resultPath = options.out ?? `${options.file.replace(/\.csv$/i, '')}.results.csv`;
  const previous = await readResults(resultPath);
  const settled = (id: string) => previous.get(id)?.outcome === 'sent' || previous.get(id)?.outcome === 'rejected';
  const todoCount = rows.filter((r) => !r.senderId || !settled(r.senderId)).length;
  const skipped = rows.length - todoCount;

  const exists = await stat(resultPath).then(
    (st) => st.size > 0,
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
  const outcomes = new Map([...previous].map(([id, p]) => [id, p.outcome]));
  const bar = new ProgressBar(options.progress ?? Boolean(process.stderr.isTTY), todoCount);
  out.note(
    `Sending ${todoCount} payout(s) from ${options.file} in bulk requests of up to ${CHUNK_SIZE}` +
      (skipped ? ` (${skipped} already done, skipped)` : '') +
      `; results in ${resultPath}`,
  );
  bar.draw(counts, true);

  let stopping = false;
  const onSigint = () => {
    if (stopping) process.exit(Exit.interrupted);
    stopping = true;
  };
  process.on('SIGINT', onSigint);

  const settle = async (
    row: Row,
    outcome: RowOutcome,
    batchId: string,
    v: { transactionId?: string | null; status?: string | null; code?: unknown; message?: string },
  ) => {
    counts[outcome]++;
    if (row.senderId) outcomes.set(row.senderId, outcome);
    await record([
      row.line,
      row.senderId,
      outcome,
      v.transactionId,
      v.status,
      row.input?.amount,
      v.code,
      v.message,
      batchId,
    ]);
    bar.draw(counts);
  };

  try {
    for (const [k, chunk] of chunks.entries()) {
      if (stopping) break;
      const todo = chunk.filter((r) => !r.senderId || !settled(r.senderId));
      for (const row of todo.filter((r) => !r.input)) {
        await settle(row, 'rejected', '', { code: 'INVALID_ROW', message: row.problem ?? 'invalid row' });
      }
      const send = todo.filter((r) => r.input);
      if (send.length === 0) continue;
      const earlier = new Set(chunk.map((r) => previous.get(r.senderId)?.batchId).filter(Boolean)).size;
      const batchId = chunkBatchId(fileHash, k, earlier);
      let result: BulkResult;
      try {
        // 'return': a batch that an interrupted run sent is found and recorded, not sent again.
        result = await payrail.payouts.bulk(
          { batchId, items: send.map((r) => r.input as PayoutInitiateInput) },
          { onDuplicate: 'return' },
        );
      } catch (err) {
        if (err instanceof AuthenticationError || err instanceof ConfigurationError || !(err instanceof PayrailError)) {
          throw err; // every other chunk would fail the same way: stop, and leave these rows to the next run
        }
        for (const row of send) {
          await settle(row, err.retryable ? 'error' : 'rejected', batchId, { code: err.code, message: err.message });
        }
        continue;
      }
      for (const [i, row] of send.entries()) {
        const v = result.items[i];
        if (!v || v.senderId !== row.senderId) {
          // Not the batch these rows were sent in (the file changed under the same name): try again next run.
          await settle(row, 'error', batchId, { code: 'BATCH_MISMATCH', message: 'no verdict for this row' });
        } else await settle(row, await rowOutcome(payrail, row, v), batchId, v);
      }
    }
  } finally {
    process.off('SIGINT', onSigint);
    await writing;
    await handle.close();
    bar.draw(counts, true);
    bar.end();
  }

  const notSent = rows.filter((r) => outcomes.get(r.senderId) !== 'sent' || !r.senderId).length;
  const waited =
    options.waitMs !== undefined && !stopping
      ? await waitForFinal(payrail, out, resultPath, options.waitMs)
      : undefined;
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
    ...(waited ? { final: waited.byStatus, timedOut: waited.timedOut } : {}),
  };
  out.result(summary, () =>
    [
      `${rows.length} row(s): ${counts.sent} sent, ${counts.rejected} rejected, ${counts.error} error(s), ${skipped} skipped (done before).`,
      ...(waited ? [waitedLine(waited)] : []),
      stopping
        ? `Interrupted: run the same command again to send the remaining rows.`
        : notSent > 0
          ? `${notSent} row(s) not sent; see ${resultPath}. Rows with outcome "error" are sent again when you rerun.`
          : `Every row is sent. Results: ${resultPath}`,
    ].join('\n'),
  );
  if (stopping) return Exit.interrupted;
  if (notSent > 0) return Exit.partial;
  if (waited?.timedOut) return Exit.timeout;
  if (waited && ((waited.byStatus.FAILED ?? 0) > 0 || (waited.byStatus.REFUNDED ?? 0) > 0)) return Exit.checkFailed;
  return Exit.ok;
}

interface Waited {
  /** Sent payouts of the result file by their last known status. */
  byStatus: Partial<Record<PayoutStatus, number>>;
  timedOut: boolean;
}

function waitedLine(w: Waited): string {
  const statuses = Object.entries(w.byStatus)
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');
  return w.timedOut
    ? `Timed out waiting; statuses now: ${statuses || 'none'} (recorded in the result file).`
    : `Final statuses: ${statuses || 'none'} (recorded in the result file).`;
}

const isFinal = (status: string) => (FINAL_PAYOUT_STATUSES as readonly string[]).includes(status);

/**
 * `--wait`: polls the batches of every sent row of the result file (this run's and earlier ones') until each is
 * complete (every payout SUCCESS or REFUNDED) or `timeoutMs` passes, then writes each row's status into the result
 * file, so that it shows outcomes rather than INITIATED. One summary request per open batch and round, then the
 * items page by page once; a row whose payout is not in its batch (found by sender_id after a 4009) is followed
 * on its own.
 */
async function waitForFinal(payrail: Payrail, out: Output, path: string, timeoutMs: number): Promise<Waited> {
  const [header, ...records] = resultRows(await readFile(path, 'utf8'));
  const names = header?.fields ?? [];
  const [sender, outcome, txn, status, message, batch] = [
    'sender_id',
    'outcome',
    'transaction_id',
    'status',
    'message',
    'batch_id',
  ].map((n) => names.indexOf(n)) as [number, number, number, number, number, number];
  // The line that counts for each sender_id is its last (readResults).
  const effective = new Map<string, { fields: string[] }>();
  for (const r of records) if (r.fields[sender]) effective.set(r.fields[sender] as string, r);
  const sent = [...effective.values()].filter((r) => r.fields[outcome] === 'sent' && r.fields[txn]);
  const batches = [...new Set(sent.map((r) => r.fields[batch] ?? '').filter(Boolean))];
  out.note(
    `Waiting up to ${Math.round(timeoutMs / 1000)} s for ${sent.length} payout(s) in ${batches.length} batch(es) to be final…`,
  );

  const deadline = clockNow() + timeoutMs;
  const open = new Set(batches);
  let interval = 500;
  while (open.size > 0 && clockNow() < deadline) {
    for (const id of [...open]) {
      const st = await payrail.payouts.bulkStatus(id).catch((err: unknown) => {
        if (err instanceof PayrailError && err.retryable) return undefined; // asked again next round
        throw err;
      });
      if (st && (st.completedAt || st.summary.accepted === 0)) open.delete(id);
    }
    if (open.size === 0) break;
    await sleep(Math.min(interval, Math.max(0, deadline - clockNow())));
    interval = Math.min(Math.ceil(interval * 1.5), 5_000);
  }

  const latest = new Map<string, { status: PayoutStatus; statusMessage: string | null }>();
  for (const id of batches) {
    let cursor: string | undefined;
    do {
      const page: BulkStatus = await payrail.payouts.bulkStatus(id, { cursor });
      for (const item of page.items) {
        if (item.transactionId && item.status) {
          latest.set(item.transactionId, { status: item.status, statusMessage: item.statusMessage });
        }
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  for (const r of sent) {
    const id = r.fields[txn] as string;
    if (latest.has(id)) continue;
    const p = await payrail.payouts
      .waitFor({ transactionId: id }, { timeoutMs: Math.max(1, deadline - clockNow()) })
      .catch((err: unknown) => {
        if (err instanceof WaitTimeoutError && err.last) return err.last as Payout;
        throw err;
      });
    latest.set(id, p);
  }

  const byStatus: Partial<Record<PayoutStatus, number>> = {};
  for (const r of sent) {
    const now = latest.get(r.fields[txn] as string);
    if (!now) continue;
    r.fields[status] = now.status;
    if (now.statusMessage) r.fields[message] = now.statusMessage;
    byStatus[now.status] = (byStatus[now.status] ?? 0) + 1;
  }
  // Written whole to a file beside it, then renamed over it: an interruption leaves the old file, never half of one.
  const temp = `${path}.tmp`;
  await writeFile(temp, [header, ...records].map((r) => csvLine(r?.fields ?? [])).join(''));
  await rename(temp, path);
  const timedOut = sent.some((r) => !isFinal(r.fields[status] ?? ''));
  return { byStatus, timedOut };
}

/** The rows of a result file this command wrote, each field as it was before `csvLine` guarded it. */
function resultRows(text: string) {
  return parseCsv(text).map((r) => ({ ...r, fields: r.fields.map(unguarded) }));
}

/** A row's outcome from its item verdict; a 4009 whose payout is this row's (an earlier, unrecorded run) is sent. */
async function rowOutcome(payrail: Payrail, row: Row, v: BulkItemVerdict): Promise<RowOutcome> {
  if (v.ok) return 'sent';
  if (v.code === PayoutCodes.duplicateSenderId.code && row.input) {
    const existing = await payrail.payouts.get({ senderId: row.senderId }).catch(() => undefined);
    if (existing && payoutMatchesRow(existing, row.input)) {
      v.transactionId = existing.transactionId;
      v.status = existing.status;
      return 'sent';
    }
  }
  return TEMPORARY_CODES.has(v.code) ? 'error' : 'rejected';
}

function payoutMatchesRow(
  p: { walletId: string; amount: string; beneficiary: { accountNumber: string; ifsc: string } },
  input: PayoutInitiateInput,
) {
  const paise = (a: string) => Math.round(Number(a) * 100);
  return (
    p.walletId === input.walletId &&
    paise(p.amount) === paise(String(input.amount)) &&
    p.beneficiary.accountNumber === input.beneficiary.accountNumber &&
    p.beneficiary.ifsc.toUpperCase() === input.beneficiary.ifsc.toUpperCase()
  );
}

/** `--dry-run`: every row's verdict, chunk by chunk, as the server would give it now; nothing is sent. */
async function dryRun(
  payrail: Payrail,
  out: Output,
  options: BatchOptions,
  chunks: Row[][],
  fileHash: string,
): Promise<number> {
  const verdicts: { line: number; sender_id: string; code: number | string; message: string }[] = [];
  for (const [k, chunk] of chunks.entries()) {
    for (const row of chunk.filter((r) => !r.input)) {
      verdicts.push({ line: row.line, sender_id: row.senderId, code: 'INVALID_ROW', message: row.problem ?? '' });
    }
    const send = chunk.filter((r) => r.input);
    if (send.length === 0) continue;
    const batchId = chunkBatchId(fileHash, k, 0);
    let result: BulkResult;
    try {
      result = await payrail.payouts.bulk({
        batchId,
        items: send.map((r) => r.input as PayoutInitiateInput),
        dryRun: true,
      });
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      // This chunk was sent before: its recorded verdicts.
      result = err.existing as BulkResult;
    }
    send.forEach((row, i) => {
      const v = result.items[i];
      verdicts.push({
        line: row.line,
        sender_id: row.senderId,
        code: v?.code ?? 'UNKNOWN',
        message: v?.ok ? (result.dryRun ? 'would be sent' : `already sent (${v.transactionId})`) : (v?.message ?? ''),
      });
    });
  }
  verdicts.sort((a, b) => a.line - b.line);
  const failing = verdicts.filter((v) => v.code !== 2000).length;
  out.result(
    { file: options.file, dryRun: true, rows: verdicts.length, pass: verdicts.length - failing, failing, verdicts },
    () =>
      [
        ...verdicts.map(
          (v) =>
            `line ${v.line}  ${v.sender_id || '(no sender_id)'}  ${v.code === 2000 ? 'OK  ' : v.code}  ${v.message}`,
        ),
        `Dry run of ${options.file}: ${verdicts.length - failing} row(s) would be sent, ${failing} would not. Nothing was sent.`,
      ].join('\n'),
  );
  return failing > 0 ? Exit.partial : Exit.ok;
}
