import { PayrailError } from '@payrail/sdk';
import type { Command } from 'commander';
import type { Row } from '../../adminClient.ts';
import { amountArg } from '../../argParsers.ts';
import { adminRequest, output } from '../../context.ts';
import { annotate, cell, keyValues, type Cell } from '../../output.ts';
import { adminGet, showCommand } from '../../showCommand.ts';
import { ulid } from '../../ulid.ts';

/** `payrail wallet …`: the operator's side of wallets (admin API). */
export function walletCommands(program: Command): void {
  const wallet = program.command('wallet').description('Open, credit and inspect wallets (operator)');

  wallet
    .command('create')
    .description('Open another wallet for a merchant')
    .argument('<merchantId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const w = await adminRequest(
        cmd,
        'POST',
        `/admin/v1/merchants/${encodeURIComponent(id)}/wallets`,
        undefined,
        'wallet create',
      );
      output(cmd).result(w, () => String(w.wallet_id));
    });

  wallet
    .command('credit')
    .description('Credit a wallet (top-up); a credit is applied once per reference')
    .argument('<walletId>')
    .argument('<amount>', 'rupees, e.g. 10000 or 10000.50', amountArg)
    .option(
      '--reference <ref>',
      'idempotency reference of the credit (e.g. the bank transfer id); default: a new cli-<ULID>, printed',
    )
    .addHelpText(
      'after',
      `
Without --reference the command makes one up (cli-<ULID>) and prints it before sending. If the answer is lost
(timeout, exit 6), run the same command with --reference <that reference>: the credit is applied at most once.`,
    )
    .action(async (id: string, amount: string, opts: { reference?: string }, cmd: Command) => {
      const out = output(cmd);
      // Without a reference, running the command again after a lost answer would credit twice: one is made up and
      // shown before the request, so that the operator can repeat the command with it.
      const generated = !opts.reference;
      const reference = opts.reference || `cli-${ulid()}`;
      const retry = `--reference ${reference}`;
      if (generated) {
        out.note(`Crediting with reference ${reference} (generated); to retry this credit safely, add ${retry}.`);
      }
      let r: Row;
      try {
        r = await adminRequest(
          cmd,
          'POST',
          `/admin/v1/wallets/${encodeURIComponent(id)}/credits`,
          { amount, reference },
          'wallet credit',
        );
      } catch (err) {
        if (generated && err instanceof PayrailError && err.retryable) {
          throw annotate(err, `The credit may have been applied: run the same command with ${retry} (never twice).`, {
            reference,
          });
        }
        throw err;
      }
      out.result({ ...r, reference, reference_generated: generated }, () =>
        keyValues([
          ['Wallet ID', cell(r.wallet_id)],
          ['Balance', cell(r.balance)],
          ['Reference', generated ? `${reference} (generated; repeat with ${retry})` : reference],
          ...(r.duplicate ? ([['Note', 'reference already applied; nothing credited']] as [string, Cell][]) : []),
        ]),
      );
    });

  showCommand(wallet, {
    description: 'Show a wallet with its balance, the amount on hold and its virtual account',
    argument: '<walletId>',
    fetch: adminGet((id) => `/admin/v1/wallets/${id}`),
    view: (w) => {
      // The account merchants fund the wallet through ("-" in live mode until PAYRAIL_VA_IFSC is set).
      const va = w.virtual_account as { number?: string; ifsc?: string } | undefined;
      return keyValues([
        ['Wallet ID', cell(w.wallet_id)],
        ['Merchant ID', cell(w.merchant_id)],
        ['Balance', cell(w.balance)],
        ['On hold', cell(w.on_hold)],
        ['Currency', cell(w.currency)],
        ['Virtual account', cell(va?.number)],
        ['IFSC', cell(va?.ifsc)],
        ['Updated', cell(w.updated_at)],
      ]);
    },
  });
}
