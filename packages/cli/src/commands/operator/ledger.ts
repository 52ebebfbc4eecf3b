import type { Command } from 'commander';
import type { Row } from '../../adminClient.ts';
import { adminRequest, output } from '../../context.ts';
import { Exit, ExitWith } from '../../exitCodes.ts';
import { cell, table } from '../../output.ts';

/** `payrail ledger …`: checks of the ledger (admin API). */
export function ledgerCommands(program: Command): void {
  const ledger = program.command('ledger').description('Ledger checks (operator)');
  ledger
    .command('verify')
    .description("Check every wallet's balance against the sum of its ledger entries (exit 7 on a mismatch)")
    .action(async (_opts, cmd: Command) => {
      const r = await adminRequest(cmd, 'GET', '/admin/v1/ledger/verify', undefined, 'ledger verify');
      const mismatches = (r.mismatches as Row[] | undefined) ?? [];
      output(cmd).result(r, () =>
        r.ok
          ? `Ledger OK: ${String(r.wallets_checked)} wallet(s) checked, balances equal their entries.`
          : `Ledger MISMATCH in ${mismatches.length} wallet(s) of ${String(r.wallets_checked)}:\n` +
            table(
              mismatches,
              Object.keys(mismatches[0] ?? {}).map((k) => [k.toUpperCase(), (m: Row) => cell(m[k])]),
            ),
      );
      if (!r.ok) throw new ExitWith(Exit.checkFailed);
    });
}
