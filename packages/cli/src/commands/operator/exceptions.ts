import { EXCEPTION_ACTIONS, EXCEPTION_KIND_NAMES, EXCEPTION_STATES } from '@payrail/protocol';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Row } from '../../adminClient.ts';
import { adminRequest, output } from '../../context.ts';
import { listCommand } from '../../listCommand.ts';
import { cell, keyValues, table, type Cell } from '../../output.ts';
import { adminGet, showCommand } from '../../showCommand.ts';

/** The most exceptions one CSV export holds (the server's bound): narrow the filters for more. */
const CSV_LIMIT = 10_000;
/** A reason longer than this is cut in the list's table (`exceptions show` and --json have it whole). */
const REASON_WIDTH = 100;

function dayArg(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new InvalidArgumentError('expected an IST day like 2026-05-04');
  return value;
}

function reasonArg(value: string): string {
  const reason = value.trim();
  if (!reason) throw new InvalidArgumentError('say why the exception is resolved this way');
  if (reason.length > 1000) throw new InvalidArgumentError('at most 1000 characters');
  return reason;
}

const short = (text: unknown, width: number): Cell => {
  const s = text === null || text === undefined ? null : String(text);
  return s !== null && s.length > width ? `${s.slice(0, width - 1)}…` : s;
};

const listColumns: [string, (e: Row) => Cell][] = [
  ['EXCEPTION', (e) => cell(e.exception_id)],
  ['KIND', (e) => cell(e.kind)],
  ['STATE', (e) => cell(e.state)],
  ['AMOUNT', (e) => cell(e.amount)],
  ['PAYOUT/MERCHANT', (e) => cell(e.payout_id ?? e.merchant_id ?? e.wallet_id)],
  ['SOURCE', (e) => cell(e.source)],
  ['CREATED', (e) => cell(e.created_at)],
  ['REASON', (e) => short(e.reason, REASON_WIDTH)],
];

/** A reported or held value as one cell: nested values as JSON. */
const factCell = (v: unknown): Cell => (v !== null && typeof v === 'object' ? JSON.stringify(v) : cell(v));

/** One exception for people: its facts, then what was reported beside what Payrail holds, field by field. */
function exceptionView(e: Row): string {
  const reported = (e.reported as Row | undefined) ?? {};
  const held = (e.held as Row | undefined) ?? {};
  const resolution = e.resolution as Row | undefined;
  const allowed = (e.allowed_actions as string[] | undefined) ?? [];
  const fields = [...new Set([...Object.keys(reported), ...Object.keys(held)])];
  const differs = (f: string) =>
    reported[f] !== undefined &&
    reported[f] !== null &&
    held[f] !== undefined &&
    held[f] !== null &&
    JSON.stringify(reported[f]) !== JSON.stringify(held[f]);
  return [
    keyValues([
      ['Exception', cell(e.exception_id)],
      ['Kind', cell(e.kind)],
      ['State', cell(e.state)],
      ['Amount at stake', cell(e.amount)],
      ['Payout', cell(e.payout_id)],
      ['Merchant', cell(e.merchant_id)],
      ['Wallet', cell(e.wallet_id)],
      ['Source', e.source_ref ? `${String(e.source)} (${String(e.source_ref)})` : cell(e.source)],
      ['Reason', cell(e.reason)],
      ['Created', cell(e.created_at)],
      ['Allowed actions', allowed.length ? allowed.join(', ') : null],
      ['Return payout', cell(e.return_payout_id)],
      ...(e.reopened
        ? ([['Reopened', `${String((e.reopened as Row).at)}: ${String((e.reopened as Row).reason)}`]] as [
            string,
            Cell,
          ][])
        : []),
      ...(resolution
        ? ([
            [
              'Resolution',
              `${String(resolution.action)} by ${String(resolution.by)} at ${String(resolution.at)}: ${String(resolution.reason)}`,
            ],
          ] as [string, Cell][])
        : []),
    ]),
    '',
    fields.length === 0
      ? 'Nothing reported or held.'
      : table(fields, [
          ['FIELD', (f) => f],
          ['REPORTED', (f) => factCell(reported[f])],
          ['HELD', (f) => factCell(held[f])],
          ['DIFFERS', (f) => (differs(f) ? 'yes' : null)],
        ]),
  ].join('\n');
}

/**
 * `payrail exceptions …`: the exceptions queue (docs/operator/exceptions.md) through the admin API: reports Payrail
 * refused and reconciliation results other than matched, each resolved once.
 */
export function exceptionsCommands(program: Command): void {
  const exceptions = program
    .command('exceptions')
    .description('The exceptions queue: refused outside reports and reconciliation results, resolved once');

  listCommand(exceptions, {
    description: 'List exceptions, oldest first (both states unless --state); --csv for a spreadsheet',
    filters: (cmd) =>
      cmd
        .addOption(new Option('--state <state>', 'only open or only resolved exceptions').choices(EXCEPTION_STATES))
        .addOption(new Option('--kind <kind>', 'only exceptions of this kind').choices(EXCEPTION_KIND_NAMES))
        .option('--from <day>', 'created on or after this IST day (YYYY-MM-DD)', dayArg)
        .option('--to <day>', 'created on or before this IST day (YYYY-MM-DD)', dayArg),
    byMerchant: true,
    path: '/admin/v1/exceptions',
    query: (opts: { state?: string; kind?: string; from?: string; to?: string }) => ({
      state: opts.state,
      kind: opts.kind,
      from: opts.from,
      to: opts.to,
    }),
    columns: listColumns,
    empty: 'No exceptions.',
    csv: { what: 'exception', limit: CSV_LIMIT, narrow: '--state, --kind, --merchant, --from or --to' },
  }).addHelpText(
    'after',
    `
AMOUNT is the amount at stake (rupees); PAYOUT/MERCHANT is the payout the exception names, else its
merchant or wallet. \`payrail exceptions show ID\` prints what was reported beside what Payrail holds.

Examples:
  payrail exceptions list --state open
  payrail exceptions list --state open --kind unmatched --from 2026-05-01 --to 2026-05-31
  payrail exceptions list --merchant MR01… --all --json
  payrail exceptions list --state resolved --csv > exceptions.csv`,
  );

  showCommand(exceptions, {
    description: 'Show one exception: what was reported beside what Payrail holds, and the actions it allows',
    argument: '<exceptionId>',
    fetch: adminGet((id) => `/admin/v1/exceptions/${id}`),
    view: exceptionView,
  });

  exceptions
    .command('resolve')
    .description(
      'Resolve an open exception once with one of the actions it allows (see `exceptions show`) and a reason; ' +
        'the action runs through the same guards as doing it by hand',
    )
    .argument('<exceptionId>')
    .addOption(
      new Option('--action <action>', 'what to do; the exception lists the ones it allows')
        .choices(EXCEPTION_ACTIONS)
        .makeOptionMandatory(),
    )
    .requiredOption(
      '--reason <text>',
      'why (1-1000 characters), kept with the resolution and in the audit log',
      reasonArg,
    )
    .option('--wallet <walletId>', 'assign_to_wallet: the wallet the deposit is credited to')
    .addHelpText(
      'after',
      `
Actions: dismiss closes it, no money moves; apply_as_reported applies the refused report as it came (the payout
moves only as its transition table allows); refund_in_full gives the payout's money back to the wallet (a SUCCESS
payout is returned, one still open is failed and refunded). A deposit credited nowhere: assign_to_wallet credits it
to the wallet named by --wallet (once per UTR); return_to_sender pays it back to the account it came from, as the
platform's payout from its suspense wallet (the report must name the remitter's account, IFSC and name; if the return
fails, the exception opens again and can be returned again or dismissed). An exception resolved already, or an action
it does not allow (the error lists the allowed ones), is refused with exit 4; an unknown exception is exit 5.

Examples:
  payrail exceptions show EX01…
  payrail exceptions resolve EX01… --action dismiss --reason "Bank charge, booked by hand"
  payrail exceptions resolve EX01… --action refund_in_full --reason "Bank confirmed the return" --json
  payrail exceptions resolve EX01… --action assign_to_wallet --wallet WL01… --reason "Merchant sent the proof"
  payrail exceptions resolve EX01… --action return_to_sender --reason "Nobody claims it"`,
    )
    .action(async (id: string, opts: { action: string; reason: string; wallet?: string }, cmd: Command) => {
      const e = await adminRequest(
        cmd,
        'POST',
        `/admin/v1/exceptions/${encodeURIComponent(id)}/resolve`,
        { action: opts.action, reason: opts.reason, ...(opts.wallet ? { wallet_id: opts.wallet } : {}) },
        'exceptions resolve',
      );
      const returned = e.return_payout_id ? ` The return is payout ${String(e.return_payout_id)}.` : '';
      output(cmd).result(e, () => `${exceptionView(e)}\n\nResolved: ${opts.action}.${returned}`);
    });
}
