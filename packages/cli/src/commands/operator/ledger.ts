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
    .description(
      "Check every wallet's balance (the platform's included) against the sum of its ledger entries, and that each " +
        'fee kind sums to zero over all wallets (exit 7 on a mismatch)',
    )
    .option(
      '--full',
      'add up every entry of the ledger, not only those after the days the worker has closed (slower on a large ledger)',
    )
    .action(async (opts: { full?: boolean }, cmd: Command) => {
      const path = `/admin/v1/ledger/verify${opts.full ? '?full=true' : ''}`;
      const r = await adminRequest(cmd, 'GET', path, undefined, 'ledger verify');
      const mismatches = (r.mismatches as Row[] | undefined) ?? [];
      const unbalanced = (r.unbalanced_kinds as Row[] | undefined) ?? [];
      const checked = `${String(r.wallets_checked)} wallet(s) checked (${String(r.platform_wallets_checked ?? 0)} of the platform)`;
      const rows = (list: Row[]) =>
        table(
          list,
          Object.keys(list[0] ?? {}).map((k) => [k.toUpperCase(), (m: Row) => cell(m[k])]),
        );
      output(cmd).result(r, () =>
        r.ok
          ? `Ledger OK: ${checked}, balances equal their entries, every fee kind sums to zero.`
          : [
              ...(mismatches.length || !unbalanced.length
                ? [
                    `Ledger MISMATCH in ${mismatches.length} wallet(s) of ${String(r.wallets_checked)}:\n${rows(mismatches)}`,
                  ]
                : []),
              ...(unbalanced.length
                ? [
                    `Ledger UNBALANCED: ${unbalanced.length} kind(s) do not sum to zero over all wallets:\n${rows(unbalanced)}`,
                  ]
                : []),
            ].join('\n'),
      );
      if (!r.ok) throw new ExitWith(Exit.checkFailed);
    });
}
