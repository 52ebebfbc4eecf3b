import { InvalidArgumentError, type Command } from 'commander';
import type { Row } from '../../adminClient.ts';
import { adminRequest, output } from '../../context.ts';
import { listCommand } from '../../listCommand.ts';
import { merchantLabel } from '../../merchantLabel.ts';
import { cell, keyValues, type Cell } from '../../output.ts';
import { adminGet, showCommand } from '../../showCommand.ts';

function payoutAdminView(p: Row): string {
  const b = (p.beneficiary as Row | undefined) ?? {};
  return keyValues([
    ['Transaction ID', cell(p.transaction_id)],
    ['Sender ID', cell(p.sender_id)],
    ['Merchant', merchantLabel(p, false)],
    ['Wallet ID', cell(p.wallet_id)],
    ['Amount', cell(p.amount)],
    // What the merchant's pricing plan charged on it, kept after a refund (the refund is a statement entry).
    ['Fees', cell(p.fees)],
    ['GST on fees', cell(p.tax)],
    ['Mode', cell(p.payment_mode)],
    ['Status', cell(p.status)],
    ['Status message', cell(p.status_message)],
    ['UTR', cell(p.utr_number)],
    // Only for a payout the bank returned after its SUCCESS.
    ...(p.returned_at ? [['Returned', `${String(p.returned_at)}: ${String(p.return_reason)}`] as [string, Cell]] : []),
    [
      'Beneficiary',
      `${String(b.beneficiary_name ?? '')} ${String(b.beneficiary_acc_number ?? '')} ${String(b.beneficiary_ifsc ?? '')}`,
    ],
    ['Created', cell((p.timestamps as Row | undefined)?.created_at)],
    ['Updated', cell((p.timestamps as Row | undefined)?.updated_at)],
  ]);
}

/** `payrail payouts …`: the operator's view of every merchant's payouts (admin API). */
export function payoutsCommands(program: Command): void {
  const payouts = program.command('payouts').description('Operator view of payouts');

  listCommand(payouts, {
    description: 'List payouts, newest first',
    filters: (cmd) => cmd.option('--status <status>', 'INITIATED, PROCESSING, PENDING, SUCCESS, FAILED or REFUNDED'),
    byMerchant: true,
    path: '/admin/v1/payouts',
    query: (opts: { status?: string }) => ({ status: opts.status?.toUpperCase() }),
    columns: [
      ['TRANSACTION ID', (r) => cell(r.transaction_id)],
      ['SENDER ID', (r) => cell(r.sender_id)],
      ['MERCHANT', (r) => merchantLabel(r)],
      ['AMOUNT', (r) => cell(r.amount)],
      ['FEES', (r) => cell(r.fees)],
      ['GST', (r) => cell(r.tax)],
      ['MODE', (r) => cell(r.payment_mode)],
      ['STATUS', (r) => cell(r.status)],
      ['UTR', (r) => cell(r.utr_number)],
      ['CREATED', (r) => cell((r.timestamps as Row | undefined)?.created_at)],
    ],
  });

  showCommand(payouts, {
    description: 'Show one payout',
    argument: '<transactionId>',
    fetch: adminGet((id) => `/admin/v1/payouts/${id}`),
    view: payoutAdminView,
  });

  payouts
    .command('resolve')
    .description('Resolve a PENDING payout as SUCCESS or FAILED (FAILED goes on to REFUNDED)')
    .argument('<transactionId>')
    .argument('<status>', 'SUCCESS or FAILED', (v: string) => {
      const up = v.toUpperCase();
      if (up !== 'SUCCESS' && up !== 'FAILED') throw new InvalidArgumentError('expected SUCCESS or FAILED');
      return up;
    })
    .option('--utr <utr>', 'bank reference of a successful transfer')
    .action(async (id: string, status: string, opts: { utr?: string }, cmd: Command) => {
      const p = await adminRequest(
        cmd,
        'POST',
        `/admin/v1/payouts/${encodeURIComponent(id)}/resolve`,
        { status, ...(opts.utr ? { utr_number: opts.utr } : {}) },
        'payouts resolve',
      );
      output(cmd).result(p, () => payoutAdminView(p));
    });

  payouts
    .command('return')
    .description('Record that the bank returned the money of a SUCCESS payout (it becomes REFUNDED, money back once)')
    .argument('<transactionId>')
    .requiredOption('--reason <text>', 'why the bank returned it, as the merchant will read it (1-255 characters)')
    .action(async (id: string, opts: { reason: string }, cmd: Command) => {
      const p = await adminRequest(
        cmd,
        'POST',
        `/admin/v1/payouts/${encodeURIComponent(id)}/return`,
        { reason: opts.reason },
        'payouts return',
      );
      output(cmd).result(p, () => payoutAdminView(p));
    });
}
