import type { Settlement } from '@payrail/sdk';
import { InvalidArgumentError, type Command } from 'commander';
import { amountArg, secondsArg } from '../../argParsers.ts';
import { merchantClient, output } from '../../context.ts';
import { ExitWith, Exit, UsageError } from '../../exitCodes.ts';
import { keyValues, table } from '../../output.ts';
import { showCommand } from '../../showCommand.ts';

/** One settlement for people: its facts, then the collections it covers when the answer has them. */
export function settlementView(s: Settlement): string {
  const facts = keyValues([
    ['Settlement ID', s.settlementId],
    ['Status', s.status],
    ['Amount', `${s.amount} INR via ${s.paymentMode}`],
    ['Fees', `${s.fees} INR + GST ${s.tax} INR (of the collections, charged when credited)`],
    ['Wallet ID', s.walletId],
    ['Payout ID', s.payoutId],
    ['UTR', s.utr],
    ['Trigger', s.trigger],
    ['Collections', s.collectionCount],
    ['Created', s.createdAt],
    ['Updated', s.updatedAt],
  ]);
  if (!s.collections || s.collections.length === 0) return facts;
  return [
    facts,
    '',
    table(s.collections, [
      ['COLLECTION', (c) => c.collectionId],
      ['AMOUNT', (c) => c.amount],
      ['FEE', (c) => c.fee],
      ['GST', (c) => c.tax],
      ['NET', (c) => c.net],
    ]),
  ].join('\n');
}

function dayArg(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new InvalidArgumentError('expected an IST day like 2026-11-28');
  return value;
}

/** `payrail settlement …`: the merchant settles its collections to its settlement account and follows them (SDK). */
export function settlementCommands(program: Command): void {
  const settlement = program
    .command('settlement')
    .description('Settle your collections to your settlement account, and follow settlements (merchant, SDK)');

  settlement
    .command('initiate')
    .description('Settle a wallet now: everything settleable, or exactly --amount')
    .option(
      '--wallet <walletId>',
      'wallet whose collections to settle (PAYRAIL_WALLET_ID)',
      process.env.PAYRAIL_WALLET_ID,
    )
    .option('--amount <rupees>', 'settle exactly this much (default: everything settleable now)', amountArg)
    .option('--wait', 'wait until the settlement is final; exit 7 if it failed (FAILED/REFUNDED)')
    .option('--timeout <seconds>', 'with --wait: give up after this long (exit 8)', secondsArg, 120)
    .addHelpText(
      'after',
      `
A settlement pays the wallet's credited collections, net of their fees, to the settlement account the operator
registered for you, by an ordinary payout (its sender id is the settlement id). It takes the collections in the
order they were credited, within the available balance (balance minus liens and the reserve).

Exit 4 when there is no active settlement account (4016; a changed account is held for 24 hours) or nothing to
settle (4002, also when less than --amount is settleable); exit 5 for a wallet that is not yours. The command is
not retried on its own: after exit 6 (no answer), check 'payrail settlement history' before running it again.

Examples:
  payrail settlement initiate --wallet WL01…
  payrail settlement initiate --wallet WL01… --amount 5000 --wait
  payrail settlement initiate --wallet WL01… --json`,
    )
    .action(async (opts: { wallet?: string; amount?: string; wait?: boolean; timeout: number }, cmd: Command) => {
      if (!opts.wallet) throw new UsageError('give --wallet <walletId> or set PAYRAIL_WALLET_ID');
      const out = output(cmd);
      const payrail = merchantClient(cmd);
      const s = await payrail.settlements.initiate({ walletId: opts.wallet, amount: opts.amount });
      if (!opts.wait) {
        out.result(s, () => settlementView(s));
        return;
      }
      out.note(`Settlement ${s.settlementId} of ${s.amount} INR initiated; waiting for it to be final…`);
      const done = await payrail.settlements.waitFor(s.settlementId, { timeoutMs: opts.timeout * 1000 });
      out.result(done, () => settlementView(done));
      if (done.status === 'FAILED' || done.status === 'REFUNDED') throw new ExitWith(Exit.checkFailed);
    });

  showCommand(settlement, {
    name: 'status',
    description: 'Show one of your settlements with the collections it covers',
    argument: '<settlementId>',
    fetch: (id, _opts, cmd) => merchantClient(cmd).settlements.status(id as string),
    view: settlementView,
  }).addHelpText(
    'after',
    `
Exit 5 when the settlement does not exist (4103) or is another merchant's (4107).

Example:
  payrail settlement status ST01…`,
  );

  settlement
    .command('history')
    .description('List your settlements created from --from to --to (IST days, inclusive), newest first')
    .option('--from <day>', 'first IST day, YYYY-MM-DD (default: 30 days before --to)', dayArg)
    .option('--to <day>', 'last IST day, YYYY-MM-DD (default: today)', dayArg)
    .addHelpText(
      'after',
      `
At most 92 days at once, and 1,000 settlements. With --json each has the collections it covers; 'payrail
settlement status <id>' shows them as a table.

Examples:
  payrail settlement history
  payrail settlement history --from 2026-11-01 --to 2026-11-30 --json`,
    )
    .action(async (opts: { from?: string; to?: string }, cmd: Command) => {
      const list = await merchantClient(cmd).settlements.history({ from: opts.from, to: opts.to });
      output(cmd).result(list, () =>
        list.length === 0
          ? 'No settlements.'
          : table(list, [
              ['SETTLEMENT', (s) => s.settlementId],
              ['CREATED', (s) => s.createdAt],
              ['STATUS', (s) => s.status],
              ['AMOUNT', (s) => s.amount],
              ['FEES', (s) => s.fees],
              ['GST', (s) => s.tax],
              ['COLLECTIONS', (s) => s.collectionCount],
              ['TRIGGER', (s) => s.trigger],
              ['UTR', (s) => s.utr],
            ]),
      );
    });
}
