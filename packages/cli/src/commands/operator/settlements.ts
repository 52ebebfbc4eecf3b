import { writeFile } from 'node:fs/promises';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Row } from '../../adminClient.ts';
import { amountArg } from '../../argParsers.ts';
import { adminClient, adminRequest, output } from '../../context.ts';
import { UsageError } from '../../exitCodes.ts';
import { listCommand } from '../../listCommand.ts';
import { cell, keyValues, table, type Cell } from '../../output.ts';
import { adminGet, showCommand } from '../../showCommand.ts';

const SCHEDULES = ['manual', 'daily', 'instant'] as const;

function dayArg(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new InvalidArgumentError('expected an IST day like 2026-11-28');
  return value;
}

function timeArg(value: string): string {
  if (!/^([01][0-9]|2[0-3]):[0-5][0-9]$/.test(value)) throw new InvalidArgumentError('expected an IST time like 11:00');
  return value;
}

/** A percentage 0–100 with at most two decimals, kept as text (never a float). */
function percentArg(value: string): string {
  const m = /^(\d{1,3})(\.\d{1,2})?$/.exec(value);
  if (!m || Number(m[1]) > 100 || (Number(m[1]) === 100 && /[1-9]/.test(m[2] ?? ''))) {
    throw new InvalidArgumentError('expected a percentage from 0 to 100, at most two decimals (e.g. 10 or 2.5)');
  }
  return value;
}

function daysArg(value: string): number {
  if (!/^\d{1,3}$/.test(value) || Number(value) > 365) throw new InvalidArgumentError('expected 0 to 365 days');
  return Number(value);
}

const listColumns: [string, (s: Row) => Cell][] = [
  ['SETTLEMENT', (s) => cell(s.settlement_id)],
  ['MERCHANT', (s) => cell(s.merchant_id)],
  ['WALLET', (s) => cell(s.wallet_id)],
  ['STATE', (s) => cell(s.state)],
  ['AMOUNT', (s) => cell(s.amount)],
  ['FEES', (s) => cell(s.fees)],
  ['GST', (s) => cell(s.tax)],
  ['COLLECTIONS', (s) => cell(s.collection_count)],
  ['TRIGGER', (s) => cell(s.trigger)],
  ['CREATED', (s) => cell(s.created_at)],
];

/** One settlement for people: its facts, then the collections it covers (the report's lines). */
function settlementView(s: Row): string {
  const facts = keyValues([
    ['Settlement ID', cell(s.settlement_id)],
    ['Merchant ID', cell(s.merchant_id)],
    ['Wallet ID', cell(s.wallet_id)],
    ['State', cell(s.state)],
    ['Amount', `${String(s.amount)} INR via ${String(s.payment_mode)}`],
    ['Fees', `${String(s.fees)} INR + GST ${String(s.tax)} INR (of the collections, charged when credited)`],
    ['Payout ID', cell(s.payout_id)],
    ['UTR', cell(s.utr)],
    ['Trigger', cell(s.trigger)],
    ['Collections', cell(s.collection_count)],
    ['Created', cell(s.created_at)],
    ['Updated', cell(s.updated_at)],
  ]);
  const items = (s.collections as Row[] | undefined) ?? [];
  if (items.length === 0) return facts;
  return [
    facts,
    '',
    table(items, [
      ['COLLECTION', (c) => cell(c.collection_id)],
      ['AMOUNT', (c) => cell(c.amount)],
      ['FEE', (c) => cell(c.fee)],
      ['GST', (c) => cell(c.tax)],
      ['NET', (c) => cell(c.net)],
    ]),
  ].join('\n');
}

function accountView(a: Row): string {
  const reserve =
    a.reserve_percent === '0.00' ? null : `${String(a.reserve_percent)}% for ${String(a.reserve_days)} days`;
  return keyValues([
    ['Merchant ID', cell(a.merchant_id)],
    ['Account', cell(a.account_number)],
    ['IFSC', a.bank_name ? `${String(a.ifsc)} (${String(a.bank_name)})` : cell(a.ifsc)],
    ['Holder', cell(a.holder_name)],
    ['Schedule', a.schedule === 'daily' ? `daily at ${String(a.at)} IST` : cell(a.schedule)],
    ['Reserve', reserve ?? 'none'],
    ['Active from', cell(a.active_from)],
    ['Last daily run', cell(a.last_run_day)],
    ['Updated', cell(a.updated_at)],
  ]);
}

/**
 * `payrail settlements …`: merchants' settlements (docs/operator/settlements.md) through the admin API: the settlement
 * account and schedule, the list, one settlement and its CSV report, a settlement now, and the scheduled pass now.
 */
export function settlementsCommands(program: Command): void {
  const settlements = program
    .command('settlements')
    .description("Merchants' settlements of their collections: accounts and schedules, list, report, run");

  listCommand(settlements, {
    description: 'List settlements, newest first',
    filters: (cmd) =>
      cmd
        .option('--wallet <walletId>', 'only settlements of this wallet')
        .option('--from <day>', 'created on or after this IST day (YYYY-MM-DD)', dayArg)
        .option('--to <day>', 'created on or before this IST day (YYYY-MM-DD)', dayArg),
    byMerchant: true,
    path: '/admin/v1/settlements',
    query: (opts: { wallet?: string; from?: string; to?: string }) => ({
      wallet_id: opts.wallet,
      from: opts.from,
      to: opts.to,
    }),
    columns: listColumns,
    empty: 'No settlements.',
  }).addHelpText(
    'after',
    `
STATE is the state of the payout that pays the settlement (SUCCESS once the bank paid; REFUNDED when it failed
and the money went back to the wallet). \`payrail settlements show ID\` lists the collections it covers.

Examples:
  payrail settlements list --merchant MR01…
  payrail settlements list --from 2026-11-01 --to 2026-11-30 --all --json`,
  );

  showCommand(settlements, {
    description: 'Show one settlement with the collections it covers (amount, fee, GST, net of each)',
    argument: '<settlementId>',
    fetch: adminGet((id) => `/admin/v1/settlements/${id}`),
    view: settlementView,
  }).addHelpText('after', '\nExample:\n  payrail settlements show ST01…');

  settlements
    .command('report')
    .description("A settlement's report as CSV (one line per collection: amount, fee, GST, net), to stdout or --out")
    .argument('<settlementId>')
    .option('--out <file>', 'write it here instead of standard output')
    .addHelpText(
      'after',
      `
Columns: settlement_id, collection_id, amount, fee, gst, net (rupees).

Examples:
  payrail settlements report ST01… > settlement.csv
  payrail settlements report ST01… --out settlement-ST01.csv`,
    )
    .action(async (id: string, opts: { out?: string }, cmd: Command) => {
      const client = await adminClient(cmd);
      const csv = await client.request<string>(
        'GET',
        `/admin/v1/settlements/${encodeURIComponent(id)}?format=csv`,
        undefined,
        'settlements report',
        { text: true },
      );
      if (!opts.out) {
        process.stdout.write(csv);
        return;
      }
      await writeFile(opts.out, csv);
      const lines = csv.split(/\r?\n/).filter(Boolean).length - 1;
      output(cmd).result({ settlement_id: id, file: opts.out, collections: lines }, () => {
        return `Wrote ${opts.out as string} (${lines} collection${lines === 1 ? '' : 's'}).`;
      });
    });

  settlements
    .command('initiate')
    .description("Settle a merchant's wallet now (finance role): everything settleable, or exactly --amount")
    .requiredOption('--wallet <walletId>', 'the wallet whose collections to settle')
    .option('--amount <rupees>', 'settle exactly this much (default: everything settleable now)', amountArg)
    .addHelpText(
      'after',
      `
The same settlement the merchant can ask for (trigger manual), paid by a payout to the merchant's settlement
account. Exit 4 when the merchant has no active settlement account (no_settlement_account) or nothing is
settleable (nothing_to_settle); exit 5 for an unknown wallet.

Examples:
  payrail settlements initiate --wallet WL01…
  payrail settlements initiate --wallet WL01… --amount 5000 --json`,
    )
    .action(async (opts: { wallet: string; amount?: string }, cmd: Command) => {
      const body: Row = { wallet_id: opts.wallet };
      if (opts.amount !== undefined) body.amount = opts.amount;
      const s = await adminRequest(cmd, 'POST', '/admin/v1/settlements', body, 'settlements initiate');
      output(cmd).result(s, () => settlementView(s));
    });

  settlements
    .command('run')
    .description('Run the scheduled pass now (finance role): the daily runs that are due, then instant settlements')
    .addHelpText(
      'after',
      `
The server runs this pass by itself; this runs it at once. Prints the settlements it opened and the wallets it
could not settle (no_account: no active settlement account; nothing: nothing settleable).

Examples:
  payrail settlements run
  payrail settlements run --json`,
    )
    .action(async (_opts, cmd: Command) => {
      const answer = await adminRequest(cmd, 'POST', '/admin/v1/settlements/run', undefined, 'settlements run');
      const opened = (answer.settlements as Row[] | undefined) ?? [];
      const refused = (answer.refused as Row[] | undefined) ?? [];
      output(cmd).result(answer, () => {
        const parts: string[] = [];
        if (opened.length > 0) parts.push(table(opened, listColumns), '');
        parts.push(`Opened ${opened.length} settlement${opened.length === 1 ? '' : 's'}.`);
        if (refused.length > 0) {
          parts.push(
            '',
            table(refused, [
              ['WALLET', (r) => cell(r.wallet_id)],
              ['NOT SETTLED', (r) => cell(r.reason)],
            ]),
          );
        }
        return parts.join('\n');
      });
    });

  const account = settlements
    .command('account')
    .description("A merchant's settlement account and schedule: set (finance role) or show");

  account
    .command('set')
    .description("Set a merchant's settlement account and schedule; a changed account holds settlements 24 hours")
    .argument('<merchantId>')
    .requiredOption('--account <number>', 'the bank account number settlements are paid to')
    .requiredOption('--ifsc <ifsc>', "the account's IFSC")
    .requiredOption('--holder <name>', 'the account holder name')
    .addOption(
      new Option('--schedule <schedule>', 'when settlements happen by themselves').choices(SCHEDULES).default('manual'),
    )
    .option('--at <HH:MM>', 'with --schedule daily: the IST time of the daily run (default 11:00)', timeArg)
    .option(
      '--reserve-percent <percent>',
      'keep back this percentage of the last --reserve-days of collections',
      percentArg,
    )
    .option(
      '--reserve-days <days>',
      'with --reserve-percent: how many days of collections the reserve covers (default 7)',
      daysArg,
    )
    .addHelpText(
      'after',
      `
Schedules: manual (the merchant or an operator settles), daily (at --at IST, 11:00 without it, on banking days:
the collections credited up to the previous midnight), instant (each collection at the next pass).
--at with another schedule is a usage error (exit 2), as is --reserve-percent over 100. The first account holds
nothing; changing the account (number, IFSC or holder) holds settlements for 24 hours ("Active from"). With
beneficiary verification required for the merchant, the account is verified first (exit 4 when refused).

Examples:
  payrail settlements account set MR01… --account 100000000001 --ifsc SBOX0000001 --holder "Acme Traders"
  payrail settlements account set MR01… --account 100000000001 --ifsc SBOX0000001 --holder "Acme Traders" \\
      --schedule daily --at 11:00 --reserve-percent 10 --reserve-days 7`,
    )
    .action(
      async (
        id: string,
        opts: {
          account: string;
          ifsc: string;
          holder: string;
          schedule: (typeof SCHEDULES)[number];
          at?: string;
          reservePercent?: string;
          reserveDays?: number;
        },
        cmd: Command,
      ) => {
        // The server ignores `at` for other schedules; given by hand, it is a mistake worth saying.
        if (opts.schedule !== 'daily' && opts.at !== undefined) {
          throw new UsageError('--at is only for --schedule daily');
        }
        const body: Row = {
          account_number: opts.account,
          ifsc: opts.ifsc,
          holder_name: opts.holder,
          schedule: opts.schedule,
        };
        if (opts.at !== undefined) body.at = opts.at;
        if (opts.reservePercent !== undefined) body.reserve_percent = opts.reservePercent;
        if (opts.reserveDays !== undefined) body.reserve_days = opts.reserveDays;
        const a = await adminRequest(
          cmd,
          'PUT',
          `/admin/v1/merchants/${encodeURIComponent(id)}/settlement`,
          body,
          'settlements account set',
        );
        output(cmd).result(a, () => accountView(a));
      },
    );

  showCommand(account, {
    description: "Show a merchant's settlement account and schedule (exit 5 when none is set)",
    argument: '<merchantId>',
    fetch: adminGet((id) => `/admin/v1/merchants/${id}/settlement`),
    view: accountView,
  }).addHelpText('after', '\nExample:\n  payrail settlements account show MR01…');
}
