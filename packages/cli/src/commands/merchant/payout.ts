import {
  ConflictError,
  PAYMENT_MODES,
  PAYOUT_STATUSES,
  type PaymentMode,
  type Payout,
  type PayoutInitiateInput,
  type PayoutStatus,
  type PayoutWaitTarget,
  type Payrail,
} from '@payrail/sdk';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { amountArg, positiveInt, secondsArg } from '../../argParsers.ts';
import { sendBatch } from '../../bulk.ts';
import { nowDate } from '../../clock.ts';
import { merchantClient, output } from '../../context.ts';
import { Exit, ExitWith, UsageError } from '../../exitCodes.ts';
import { annotate, keyValues } from '../../output.ts';
import { showCommand } from '../../showCommand.ts';
import { lookupOf } from './lookupOf.ts';
import { senderIdConflict } from './senderIdConflict.ts';

export function payoutView(p: Payout): string {
  const b = p.beneficiary;
  return keyValues([
    ['Transaction ID', p.transactionId],
    ['Sender ID', p.senderId],
    ['Status', p.statusMessage ? `${p.status} (${p.statusMessage})` : p.status],
    ['Amount', `${p.amount} INR via ${p.paymentMode}`],
    ['Fees', `${p.fees} INR + GST ${p.tax} INR`],
    ['Wallet ID', p.walletId],
    ['Beneficiary', `${b.name}, account ${b.accountNumber}, IFSC ${b.ifsc}${b.bankName ? ` (${b.bankName})` : ''}`],
    ['UTR', p.utr],
    ['Remarks', p.remarks],
    ['Callback URL', p.callbackUrl],
    ['Created', p.createdAt],
    ['Updated', p.updatedAt],
  ]);
}

const modeArg = (value: string): PaymentMode => {
  const up = value.toUpperCase();
  if (!(PAYMENT_MODES as readonly string[]).includes(up)) throw new InvalidArgumentError('expected IMPS, NEFT or RTGS');
  return up as PaymentMode;
};

function untilArg(value: string): PayoutWaitTarget {
  const v = value.toLowerCase();
  if (v === 'final' || v === 'outcome') return v;
  const up = value.toUpperCase();
  if ((PAYOUT_STATUSES as readonly string[]).includes(up)) return up as PayoutStatus;
  throw new InvalidArgumentError(`expected final, outcome or a status (${PAYOUT_STATUSES.join(', ')})`);
}

/**
 * Initiates a payout; when its sender id already holds the same payout (an earlier run of the command), that payout
 * is the result, flagged, instead of an error. A different payout under the sender id stays a ConflictError
 * (exit 4), told in the CLI's words (senderIdConflict).
 */
async function initiateOnce(
  payrail: Payrail,
  input: PayoutInitiateInput,
): Promise<{ payout: Payout; alreadyExisted: boolean }> {
  try {
    return { payout: await payrail.payouts.initiate(input), alreadyExisted: false };
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    const existing = err.existing as Payout | undefined;
    if (existing && err.matchesRequest) return { payout: existing, alreadyExisted: true };
    const { message, hint } = senderIdConflict(input, existing);
    throw annotate(err, hint, {}, message);
  }
}

/** Exit 7 when a payout ended in failure while a settled outcome was awaited. */
function failedOutcome(p: Payout, until: PayoutWaitTarget): boolean {
  return (until === 'final' || until === 'outcome') && (p.status === 'FAILED' || p.status === 'REFUNDED');
}

/** `payrail payout …`: the merchant sends and follows payouts (SDK). */
export function payoutCommands(program: Command): void {
  const payout = program.command('payout').description('Send and follow payouts (merchant, through the SDK)');

  payout
    .command('send')
    .description('Send one payout, or many from a CSV file (--file) with a progress bar and a result file')
    .option('--sender-id <id>', 'your unique reference; sending again with it never pays twice')
    .option('--wallet <walletId>', 'wallet to debit (PAYRAIL_WALLET_ID)', process.env.PAYRAIL_WALLET_ID)
    .option('--mode <mode>', 'IMPS, NEFT or RTGS', modeArg, 'IMPS' as PaymentMode)
    .option('--amount <rupees>', 'e.g. 100 or 100.50', amountArg)
    .option('--name <name>', 'beneficiary name')
    .option('--account <number>', 'beneficiary account number')
    .option('--ifsc <ifsc>', 'beneficiary IFSC')
    .option('--remarks <text>', 'transfer description')
    .option('--callback-url <url>', 'receives the webhooks of this payout')
    .option(
      '--wait',
      'wait until the payout is final (with --file: every sent row, statuses written to the result file); ' +
        'exit 7 if one failed',
    )
    .option('--timeout <seconds>', 'with --wait: give up after this long (exit 8)', secondsArg, 120)
    .option('--file <csv>', 'send every row of a CSV file (columns: see payrail payout send --help)')
    .option('--out <csv>', 'with --file: result file (default <file>.results.csv); also the resume state')
    .option(
      '--dry-run',
      "with --file: print every row's verdict as the server would give it now; send nothing (exit 9: some would fail)",
    )
    // Rows go in order, 1,000 per bulk request, each checked counting the rows before it (balance, limits):
    // requests in parallel would break that. Still accepted, so that scripts written for the one-request-per-row
    // sender keep working, but hidden, and a note says it has no effect.
    .addOption(new Option('--concurrency <n>').argParser(positiveInt).hideHelp())
    .addOption(new Option('--progress', 'with --file: draw the progress bar even when stderr is not a terminal'))
    .addOption(new Option('--no-progress', 'with --file: no progress bar'))
    .addHelpText(
      'after',
      `
CSV columns (header row required; names are case-insensitive):
  sender_id, amount, beneficiary_name (or name), account_number (or beneficiary_acc_number),
  ifsc (or beneficiary_ifsc), payment_mode (default --mode), wallet_id (default --wallet),
  remarks, callback_url

Rows go through the bulk API, up to 1,000 per request, in file order (each checked as a single payout would
be, counting the rows before it). The result file gets one line per row: line, sender_id, outcome (sent,
rejected or error), transaction_id, status, amount, code, message, batch_id. The status is the one at sending
(INITIATED); with --wait the command then waits until every sent payout is final (SUCCESS or REFUNDED) and
writes those statuses into the result file (or 'payrail bulk status --batch-id <batch_id>' shows them later).
Run the same command again after an interruption: rows already sent or rejected are skipped, the others are
sent again under a batch_id derived from the file and the chunk, so nothing is paid twice.

--dry-run prints every row's verdict as the server would give it now and sends nothing: exit 0 when every row
would be sent, 9 when at least one would not (its line shows the code and message).

Exit codes with --file: 0 every row sent; 9 some rows not sent (see the result file); with --wait also 8 timed
out before every payout was final, 7 every row sent but some payout ended FAILED/REFUNDED; 130 interrupted.

One payout: exit 0 when it was sent, and also when --sender-id already holds the same payout (same wallet,
mode, amount and beneficiary: a rerun); it is printed with a note "already existed" on stderr, and with --json
the printed payout has "alreadyExisted": true (false when sent now). A different payout under that sender id
is refused with exit 4.`,
    )
    .action(async (opts, cmd: Command) => {
      const out = output(cmd);
      const payrail = merchantClient(cmd);
      if (opts.concurrency !== undefined) {
        out.note('--concurrency has no effect: rows go in file order, 1,000 per bulk request.');
      }
      if (opts.file) {
        const code = await sendBatch(payrail, out, {
          file: opts.file,
          out: opts.out,
          wallet: opts.wallet,
          mode: opts.mode,
          dryRun: opts.dryRun,
          progress: opts.progress,
          ...(opts.wait && !opts.dryRun ? { waitMs: opts.timeout * 1000 } : {}),
        });
        if (code !== Exit.ok) throw new ExitWith(code);
        return;
      }
      const missing = (
        [
          ['--sender-id', opts.senderId],
          ['--wallet', opts.wallet],
          ['--amount', opts.amount],
          ['--name', opts.name],
          ['--account', opts.account],
          ['--ifsc', opts.ifsc],
        ] as const
      ).filter(([, v]) => !v);
      if (missing.length > 0) throw new UsageError(`missing ${missing.map(([n]) => n).join(', ')} (or use --file)`);
      // Running the same command again shows the payout it created (exit 0, "already existed"); a different one
      // under the same sender id is refused (exit 4).
      const { payout: sent, alreadyExisted } = await initiateOnce(payrail, {
        senderId: opts.senderId,
        walletId: opts.wallet,
        paymentMode: opts.mode,
        amount: opts.amount,
        beneficiary: { name: opts.name, accountNumber: opts.account, ifsc: opts.ifsc },
        remarks: opts.remarks,
        callbackUrl: opts.callbackUrl,
      });
      if (alreadyExisted) {
        out.note(
          `Sender id ${sent.senderId} already existed: this is payout ${sent.transactionId} made earlier with the ` +
            'same details (nothing was sent now).',
        );
      }
      if (!opts.wait) {
        out.result({ ...sent, alreadyExisted }, () => payoutView(sent));
        return;
      }
      out.note(`Payout ${sent.transactionId} ${alreadyExisted ? 'found' : 'initiated'}; waiting for it to be final…`);
      const done = await payrail.payouts.waitFor(
        { transactionId: sent.transactionId },
        { until: 'final', timeoutMs: opts.timeout * 1000 },
      );
      out.result({ ...done, alreadyExisted }, () => payoutView(done));
      if (failedOutcome(done, 'final')) throw new ExitWith(Exit.checkFailed);
    });

  showCommand(payout, {
    name: 'status',
    description: 'Show a payout by transaction id, or by --sender-id',
    argument: '[transactionId]',
    fetch: (id, opts: { senderId?: string }, cmd) => {
      // The lookup is checked before the credentials: a missing id is the first thing to report.
      const lookup = lookupOf('transactionId', id, opts.senderId);
      return merchantClient(cmd).payouts.get(lookup);
    },
    view: payoutView,
  }).option('--sender-id <id>', 'look the payout up by your reference');

  payout
    .command('watch')
    .description('Follow a payout until it is final (exit 0 SUCCESS, 7 FAILED/REFUNDED, 8 timeout)')
    .argument('[transactionId]')
    .option('--sender-id <id>', 'look the payout up by your reference')
    .option(
      '--until <target>',
      'final (SUCCESS or REFUNDED), outcome (SUCCESS, FAILED or REFUNDED), or a status',
      untilArg,
      'final' as PayoutWaitTarget,
    )
    .option('--timeout <seconds>', 'give up after this long', secondsArg, 600)
    .option('--interval <seconds>', 'first poll interval (grows up to 5 s)', secondsArg, 1)
    .addHelpText(
      'after',
      '\nWith --json, prints one JSON object per status change (NDJSON); the last line is the final state.',
    )
    .action(
      async (
        id: string | undefined,
        opts: { senderId?: string; until: PayoutWaitTarget; timeout: number; interval: number },
        cmd: Command,
      ) => {
        const out = output(cmd);
        const lookup = lookupOf('transactionId', id, opts.senderId);
        const done = await merchantClient(cmd).payouts.waitFor(lookup, {
          until: opts.until,
          timeoutMs: opts.timeout * 1000,
          intervalMs: opts.interval * 1000,
          onChange: (p) =>
            out.line(
              p,
              () => `${nowDate().toISOString()}  ${p.transactionId}  ${p.status.padEnd(10)}  ${p.statusMessage}`,
            ),
        });
        if (failedOutcome(done, opts.until)) throw new ExitWith(Exit.checkFailed);
      },
    );
}
