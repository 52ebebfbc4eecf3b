import { type Command } from 'commander';
import { simulateOnce, type Answered } from '../bankSimulator.ts';
import { output } from '../context.ts';

const summary = (a: Answered) =>
  a.error
    ? `${a.file}: not answered (${a.error})`
    : `${a.file}: ${a.accepted} paid, ${a.rejected} rejected (AC01), ${a.pending} pending → inbox/${a.written.join(', inbox/')}`;

/** `payrail bank simulate`: a bank for a bank-file folder, so that the whole loop runs without one. */
export function bankCommands(program: Command): void {
  const bank = program.command('bank').description('Play the bank for bank files (docs/operator/bank-files.md)');
  bank
    .command('simulate')
    .description(
      'Answer each new pain.001 in DIR/outbox/ with a pain.002 and a camt.054 in DIR/inbox/ (sandbox failure ' +
        'accounts rejected AC01, the pending account PDNG, the rest paid); keeps watching until Ctrl-C',
    )
    .requiredOption('--dir <dir>', 'the bank-file folder (PAYRAIL_BANKFILE_DIR)')
    .option('--once', 'answer what is there now, then exit')
    .option('--statement', 'also write a camt.053 statement for each file answered')
    .action(async (opts: { dir: string; once?: boolean; statement?: boolean }, cmd: Command) => {
      const out = output(cmd);
      const pass = async () => {
        for (const a of await simulateOnce(opts.dir, { statement: opts.statement })) out.line(a, () => summary(a));
      };
      await pass();
      if (opts.once) return;
      out.note(`Watching ${opts.dir}/outbox/ (Ctrl-C to stop)`);
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
}
