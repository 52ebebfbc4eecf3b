import { type Command } from 'commander';
import { depositProblem, simulateDeposit, simulateOnce, type Answered } from '../bankSimulator.ts';
import { output } from '../context.ts';
import { UsageError } from '../exitCodes.ts';

const summary = (a: Answered) =>
  a.error
    ? `${a.file}: not answered (${a.error})`
    : `${a.file}: ${a.accepted} paid, ${a.rejected} rejected (AC01), ${a.pending} pending → inbox/${a.written.join(', inbox/')}`;

/** `payrail bank simulate`: a bank for a bank-file folder, so that the whole loop runs without one. */
export function bankCommands(program: Command): void {
  const bank = program.command('bank').description('Play the bank for bank files (docs/operator/bank-files.md)');
  const simulate = bank
    .command('simulate')
    .description(
      'Answer each new pain.001 in DIR/outbox/ with a pain.002 and a camt.054 in DIR/inbox/ (sandbox failure ' +
        'accounts rejected AC01, the pending account PDNG, the rest paid); keeps watching until Ctrl-C',
    )
    // Not requiredOption: `simulate deposit --dir …` hands its --dir to this command (commander reads a parent's
    // options after the subcommand's name too), which must not be refused before the subcommand runs.
    .option('--dir <dir>', 'the bank-file folder (PAYRAIL_BANKFILE_DIR)')
    .option('--once', 'answer what is there now, then exit')
    .option('--statement', 'also write a camt.053 statement for each file answered')
    .action(async (opts: { dir?: string; once?: boolean; statement?: boolean }, cmd: Command) => {
      const out = output(cmd);
      const dir = opts.dir;
      if (!dir) throw new UsageError("required option '--dir <dir>' not specified");
      const pass = async () => {
        for (const a of await simulateOnce(dir, { statement: opts.statement })) out.line(a, () => summary(a));
      };
      await pass();
      if (opts.once) return;
      out.note(`Watching ${dir}/outbox/ (Ctrl-C to stop)`);
      await new Promise<void>((resolve) => {
        let busy = false;
        const timer = setInterval(() => {
          if (busy) return;
          busy = true;
          pass()
            .catch((err: unknown) => out.note(`simulate: ${(err as Error).message}`))
            .finally(() => {
              busy = false;
            });
        }, 1000);
        process.once('SIGINT', () => {
          clearInterval(timer);
          resolve();
        });
      });
    });

  simulate
    .command('deposit')
    .description(
      'Write the camt.054 a collection bank sends for a transfer to a virtual account into DIR/inbox/; the ' +
        'bank-file inbox credits it as a deposit once per UTR (or opens an exception for an unknown number or a ' +
        'remitter not allowed)',
    )
    .option('--dir <dir>', 'the bank-file folder (PAYRAIL_BANKFILE_DIR)')
    .requiredOption('--virtual-account <number>', "the wallet's virtual account number (payrail wallet show WALLET_ID)")
    .requiredOption('--amount <rupees>', 'the amount in rupees, like 1500 or 1500.50')
    .option('--utr <utr>', 'the bank reference (UTR); a new one is generated when not given')
    .option('--remitter-name <name>', "the remitter's name")
    .option('--remitter-account <account>', "the remitter's account number (checked against allowed remitters)")
    .option('--remitter-ifsc <ifsc>', "the remitter's bank IFSC (checked against allowed remitters)")
    .addHelpText(
      'after',
      '\nExample:\n  payrail bank simulate deposit --dir ./bankfiles --virtual-account 998800000000017 \\\n' +
        '    --amount 25000 --remitter-name "Asha Traders" --remitter-account 50100012345678 --remitter-ifsc HDFC0000123\n',
    )
    .action(
      async (
        opts: {
          dir?: string;
          virtualAccount: string;
          amount: string;
          utr?: string;
          remitterName?: string;
          remitterAccount?: string;
          remitterIfsc?: string;
        },
        cmd: Command,
      ) => {
        const out = output(cmd);
        // --dir after `deposit` is read by `simulate` (see above): taken from either.
        const dir = opts.dir ?? (cmd.parent?.opts() as { dir?: string } | undefined)?.dir;
        if (!dir) throw new UsageError("required option '--dir <dir>' not specified");
        const deposit = {
          virtualAccount: opts.virtualAccount.trim(),
          amount: opts.amount.trim(),
          utr: opts.utr,
          remitterName: opts.remitterName,
          remitterAccount: opts.remitterAccount,
          remitterIfsc: opts.remitterIfsc,
        };
        const problem = depositProblem(deposit);
        if (problem) throw new UsageError(problem);
        const written = await simulateDeposit(dir, deposit);
        out.line(
          { file: written.file, utr: written.utr, amount: written.amount, virtual_account: written.virtualAccount },
          () =>
            `${written.amount} to ${written.virtualAccount}, UTR ${written.utr} → inbox/${written.file} ` +
            '(credited at the next inbox scan)',
        );
      },
    );
}
