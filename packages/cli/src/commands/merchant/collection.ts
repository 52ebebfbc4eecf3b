import type { Collection } from '@payrail/sdk';
import { InvalidArgumentError, type Command } from 'commander';
import { amountArg } from '../../argParsers.ts';
import { merchantClient, output } from '../../context.ts';
import { keyValues } from '../../output.ts';
import { showCommand } from '../../showCommand.ts';
import { lookupOf } from './lookupOf.ts';

export function collectionView(c: Collection): string {
  return keyValues([
    ['Txn ID', c.txnId],
    ['Sender ID', c.senderId],
    ['Status', c.statusMessage ? `${c.status} (${c.statusMessage})` : c.status],
    ['Amount', `${c.amount} INR`],
    ['Fees', `${c.fees} INR + GST ${c.tax} INR`],
    ['Mode', c.paymentMode],
    ['Wallet ID', c.walletId],
    ['Payer VPA', c.payerVpa],
    ['UTR', c.utr],
    ['Remarks', c.remarks],
    ['Intent URL', c.intentUrl],
    ['Payment page', c.paymentUrl],
    ['Payee VPA', c.vpa],
    ['Channel', c.channel],
    ['Expires', c.expiresAt],
    ['Created', c.createdAt],
    ['Updated', c.updatedAt],
  ]);
}

/** `payrail collection …`: the merchant requests and follows UPI collections (SDK). */
export function collectionCommands(program: Command): void {
  const collection = program.command('collection').description('Request and follow UPI collections (merchant)');

  collection
    .command('create')
    .description('Create a UPI payment request; prints its intent link and payment page')
    .requiredOption('--sender-id <id>', 'your unique reference for this collection')
    .requiredOption('--amount <rupees>', '1.00 to 100000.00', amountArg)
    .option('--remarks <text>', 'description shown to the payer')
    .option('--wallet <walletId>', 'wallet credited on success (default: your first wallet)')
    .option('--callback-url <url>', 'receives the webhooks of this collection')
    .option('--payer-vpa <vpa>', "payer's UPI address: send a collect request instead of an intent link")
    .option('--vpa <vpa>', 'payee UPI address to collect into (default: your configured one)')
    .option('--txn-type <type>', 'INTENT (default) or COLLECT (needs --payer-vpa)', (v: string) => {
      const up = v.toUpperCase();
      if (up !== 'INTENT' && up !== 'COLLECT') throw new InvalidArgumentError('expected INTENT or COLLECT');
      return up;
    })
    .option('--channel <text>', 'free text up to 20 characters, recorded and echoed')
    .action(async (opts, cmd: Command) => {
      const c = await merchantClient(cmd).collections.initiate({
        senderId: opts.senderId,
        amount: opts.amount,
        remarks: opts.remarks,
        walletId: opts.wallet,
        callbackUrl: opts.callbackUrl,
        payerVpa: opts.payerVpa,
        vpa: opts.vpa,
        txnType: opts.txnType,
        channel: opts.channel,
      });
      output(cmd).result(c, () => collectionView(c));
    });

  showCommand(collection, {
    name: 'status',
    description: 'Show a collection by txnId, or by --sender-id',
    argument: '[txnId]',
    fetch: (id, opts: { senderId?: string }, cmd) =>
      merchantClient(cmd).collections.get(lookupOf('txnId', id, opts.senderId)),
    view: collectionView,
  }).option('--sender-id <id>', 'look the collection up by your reference');

  collection
    .command('simulate')
    .description('Sandbox only: move one of your collections to SUCCESS, FAILED or PENDING')
    .argument('<txnId>')
    .argument('<outcome>', 'SUCCESS, FAILED or PENDING', (v: string) => {
      const up = v.toUpperCase();
      if (!['SUCCESS', 'FAILED', 'PENDING'].includes(up))
        throw new InvalidArgumentError('expected SUCCESS, FAILED or PENDING');
      return up as 'SUCCESS' | 'FAILED' | 'PENDING';
    })
    .option('--utr <utr>', 'bank reference to record')
    .action(async (txnId: string, outcome: 'SUCCESS' | 'FAILED' | 'PENDING', opts: { utr?: string }, cmd: Command) => {
      const c = await merchantClient(cmd).sandbox.simulateCollection(txnId, outcome, { utr: opts.utr });
      output(cmd).result(c, () => collectionView(c));
    });
}
