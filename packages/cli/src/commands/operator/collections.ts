import type { Command } from 'commander';
import { listCommand } from '../../listCommand.ts';
import { merchantLabel } from '../../merchantLabel.ts';
import { cell } from '../../output.ts';

/** `payrail collections …`: the operator's view of every merchant's collections (admin API). */
export function collectionsCommands(program: Command): void {
  const collections = program.command('collections').description('Operator view of collections');

  listCommand(collections, {
    description: 'List collections, newest first',
    filters: (cmd) =>
      cmd
        .option('--status <status>', 'INITIATED, PENDING, SUCCESS or FAILED')
        .option('--sender-id <senderId>', 'only this senderId'),
    byMerchant: true,
    path: '/admin/v1/collections',
    query: (opts: { status?: string; senderId?: string }) => ({
      status: opts.status?.toUpperCase(),
      sender_id: opts.senderId,
    }),
    columns: [
      ['TXN ID', (r) => cell(r.txnId)],
      ['SENDER ID', (r) => cell(r.senderId)],
      ['MERCHANT', (r) => merchantLabel(r)],
      ['AMOUNT', (r) => cell(r.requestAmount)],
      ['FEES', (r) => cell(r.fees)],
      ['GST', (r) => cell(r.tax)],
      ['MODE', (r) => cell(r.paymentMode)],
      ['STATUS', (r) => cell(r.status)],
      ['UTR', (r) => cell(r.utr)],
      ['CREATED', (r) => cell(r.createdAt)],
    ],
  });
}
