import type { BulkStatus } from '@payrail/sdk';
import type { Command } from 'commander';
import { merchantClient } from '../../context.ts';
import { keyValues, table } from '../../output.ts';
import { showCommand } from '../../showCommand.ts';

function bulkStatusView(b: BulkStatus): string {
  const byStatus = Object.entries(b.summary.byStatus)
    .filter(([, n]) => n)
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');
  return [
    keyValues([
      ['Batch ID', b.batchId],
      [
        'Items',
        `${b.summary.items}: ${b.summary.accepted} accepted (${b.summary.amountAccepted} INR), ${b.summary.refused} refused`,
      ],
      ['Payouts', byStatus || 'none'],
      ['Created', b.createdAt],
      ['Completed', b.completedAt ?? 'not yet (some payouts are not final)'],
    ]),
    '',
    table(b.items, [
      ['#', (i) => i.index],
      ['SENDER ID', (i) => i.senderId],
      ['TRANSACTION ID', (i) => i.transactionId],
      ['STATUS', (i) => i.status ?? `refused ${i.code}`],
      ['UTR', (i) => i.utr],
      ['MESSAGE', (i) => i.statusMessage ?? (i.ok ? '' : i.message)],
    ]),
    ...(b.nextCursor ? ['', `(more: --cursor ${b.nextCursor}, or --all)`] : []),
  ].join('\n');
}

/**
 * `payrail bulk status`: a batch's statuses as they are now. `payout send --file` records each row's status at
 * sending (INITIATED); this shows where the payouts went afterwards, with the batch_id of its result file.
 */
export function bulkCommands(program: Command): void {
  const bulk = program.command('bulk').description('Follow bulk payout batches (merchant)');
  showCommand(bulk, {
    name: 'status',
    description: 'Show a batch: its summary by status and its items (200 per page)',
    fetch: async (_id, opts: { batchId: string; cursor?: string; all?: boolean }, cmd): Promise<BulkStatus> => {
      const payrail = merchantClient(cmd);
      const first = await payrail.payouts.bulkStatus(opts.batchId, { cursor: opts.cursor });
      const items = [...first.items];
      let next = first.nextCursor;
      while (opts.all && next) {
        const page = await payrail.payouts.bulkStatus(opts.batchId, { cursor: next });
        items.push(...page.items);
        next = page.nextCursor;
      }
      return { ...first, items, nextCursor: next };
    },
    view: bulkStatusView,
  })
    .requiredOption('--batch-id <id>', 'the batch_id (payout send --file writes it in the result file)')
    .option('--cursor <cursor>', 'the next page (printed after a page that has more)')
    .option('--all', 'follow every page');
}
