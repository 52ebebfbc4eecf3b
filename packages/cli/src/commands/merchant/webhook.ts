import { readFile } from 'node:fs/promises';
import type { BatchCompleted, WebhookEvent } from '@payrail/sdk';
import type { Command } from 'commander';
import { secondsArg } from '../../argParsers.ts';
import { merchantClient, output } from '../../context.ts';
import { UsageError } from '../../exitCodes.ts';
import { keyValues } from '../../output.ts';
import { collectionView } from './collection.ts';
import { payoutView } from './payout.ts';
import { settlementView } from './settlement.ts';

export function batchCompletedView(b: BatchCompleted): string {
  const byStatus = Object.entries(b.summary.byStatus)
    .filter(([, n]) => n)
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');
  return keyValues([
    ['Batch ID', b.batchId],
    [
      'Items',
      `${b.summary.items}: ${b.summary.accepted} accepted (${b.summary.amountAccepted} INR), ${b.summary.refused} refused`,
    ],
    ['Payouts', byStatus],
    ['Created', b.createdAt],
    ['Completed', b.completedAt],
  ]);
}

/** `Name: value` lines, or a JSON object. */
function parseHeaders(text: string): Record<string, string> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return JSON.parse(trimmed) as Record<string, string>;
  const headers: Record<string, string> = {};
  for (const line of trimmed.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return headers;
}

async function readDelivery(file: string | undefined, bodyFile: string | undefined, headersFile: string | undefined) {
  if (file && (bodyFile || headersFile))
    throw new UsageError('give a delivery file, or --body and --headers, not both');
  if (file) {
    let saved: { headers?: Record<string, string>; body?: unknown };
    try {
      saved = JSON.parse(await readFile(file, 'utf8')) as typeof saved;
    } catch (err) {
      throw new UsageError(`${file}: not a saved delivery ({"headers": {…}, "body": "…"}): ${(err as Error).message}`);
    }
    if (!saved.headers || saved.body === undefined) throw new UsageError(`${file}: needs "headers" and "body"`);
    // The raw body should be kept as text; an object is serialized the way the server sends it.
    const body = typeof saved.body === 'string' ? saved.body : JSON.stringify(saved.body);
    return { headers: saved.headers, body };
  }
  if (!bodyFile || !headersFile) throw new UsageError('give a delivery file, or both --body and --headers');
  return { body: await readFile(bodyFile, 'utf8'), headers: parseHeaders(await readFile(headersFile, 'utf8')) };
}

/** `payrail webhook …`: the merchant checks deliveries it received (SDK). */
export function webhookCommands(program: Command): void {
  const webhook = program.command('webhook').description('Check webhook deliveries you received (merchant)');
  webhook
    .command('verify')
    .description('Check the signature of a saved delivery and show its decrypted event (exit 7 if not genuine)')
    .argument('[delivery]', 'JSON file {"headers": {...}, "body": "<raw body>"}')
    .option('--body <file>', 'the raw body, byte for byte')
    .option('--headers <file>', 'its headers: JSON object, or "Name: value" lines')
    .option(
      '--max-age <seconds>',
      'also refuse a delivery signed longer ago than this (default: no age check)',
      secondsArg,
    )
    .addHelpText(
      'after',
      '\nNeeds the webhook secret (--webhook-secret or PAYRAIL_WEBHOOK_SECRET) and your API key and secret key,\n' +
        'which decrypt the event data.',
    )
    .action(
      async (file: string | undefined, opts: { body?: string; headers?: string; maxAge?: number }, cmd: Command) => {
        const payrail = merchantClient(cmd, { webhookSecret: true });
        const delivery = await readDelivery(file, opts.body, opts.headers);
        const event: WebhookEvent = await payrail.webhooks.verify(delivery.body, delivery.headers, {
          toleranceSeconds: opts.maxAge ?? Infinity,
        });
        output(cmd).result(event, () =>
          [
            keyValues([
              ['Verdict', 'genuine (signature matches)'],
              ['Event ID', event.id],
              ['Type', event.type],
              ['Signed at', event.timestamp],
              ['Created', event.createdAt],
            ]),
            '',
            event.kind === 'payout'
              ? payoutView(event.data)
              : event.kind === 'batch'
                ? batchCompletedView(event.data)
                : event.kind === 'deposit'
                  ? keyValues([
                      ['Deposit ID', event.data.depositId],
                      ['Wallet ID', event.data.walletId],
                      ['Amount', event.data.amount],
                      ['Fees', event.data.fees],
                      ['Tax', event.data.tax],
                      ['UTR', event.data.utr],
                      ['Remitter', event.data.remitterName],
                      ['Credited', event.data.creditedAt],
                    ])
                  : event.kind === 'settlement'
                    ? settlementView(event.data)
                    : collectionView(event.data),
          ].join('\n'),
        );
      },
    );
}
