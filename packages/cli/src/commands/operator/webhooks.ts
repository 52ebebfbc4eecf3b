import type { Command } from 'commander';
import { adminRequest, output } from '../../context.ts';
import { listCommand } from '../../listCommand.ts';
import { cell } from '../../output.ts';

/** `payrail webhooks …`: the operator's view of webhook deliveries to every merchant (admin API). */
export function webhooksCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('Operator view of webhook deliveries');

  listCommand(webhooks, {
    name: 'deliveries',
    description: 'List webhook deliveries (newest first) with their attempts',
    filters: (cmd) =>
      cmd
        .option('--state <state>', 'pending, delivered or failed')
        .option('--subject <id>', 'only deliveries of this transaction_id or txnId'),
    byMerchant: true,
    path: '/admin/v1/webhooks/deliveries',
    query: (opts: { state?: string; subject?: string }) => ({ state: opts.state, subject_id: opts.subject }),
    columns: [
      ['DELIVERY ID', (r) => cell(r.id)],
      ['TYPE', (r) => cell(r.type)],
      ['SUBJECT', (r) => cell(r.subject_id)],
      ['STATE', (r) => cell(r.state)],
      ['ATTEMPTS', (r) => cell(r.attempt_count)],
      ['LAST', (r) => cell(r.last_status ?? r.last_error)],
      ['NEXT ATTEMPT', (r) => cell(r.next_attempt_at)],
      ['URL', (r) => cell(r.url)],
    ],
  });

  webhooks
    .command('replay')
    .description('Send a delivery again now (same webhook-id, so receivers deduplicate)')
    .argument('<deliveryId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const r = await adminRequest(
        cmd,
        'POST',
        `/admin/v1/webhooks/deliveries/${encodeURIComponent(id)}/replay`,
        undefined,
        'webhooks replay',
      );
      output(cmd).result(r, () => `Delivery ${String(r.id ?? id)} queued for sending.`);
    });
}
