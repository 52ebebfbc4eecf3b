import { readFile } from 'node:fs/promises';
import { RECON_RESULT_NAMES } from '@payrail/protocol';
import { type Command } from 'commander';
import type { Row } from '../../adminClient.ts';
import { adminClient, output } from '../../context.ts';
import { CliError, Exit, ExitWith, UsageError } from '../../exitCodes.ts';
import { cell, keyValues, table, type Cell } from '../../output.ts';
import { positiveInt } from '../../argParsers.ts';

type Results = Record<string, { count: number; amount: string }>;

/** camt.053 is XML; anything else is sent as text (MT940). The server reads the format from the content. */
export function statementContentType(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, 64))
    .toString('latin1')
    .replace(/^\uFEFF|^ï»¿/, '')
    .trimStart();
  return head.startsWith('<') ? 'application/xml' : 'text/plain';
}

function runSummary(run: Row): string {
  const st = (run.statement ?? {}) as Row;
  const results = (run.results ?? {}) as Results;
  const period =
    st.period_from === st.period_to ? cell(st.period_from) : `${String(st.period_from)} – ${String(st.period_to)}`;
  const opening = (st.opening ?? {}) as Row;
  const closing = (st.closing ?? {}) as Row;
  return [
    keyValues([
      ['Run', cell(run.run_id)],
      ['Statement', `${String(st.statement_id)} (${String(st.version)})`],
      ['Account', cell(st.account)],
      ['Period', period],
      [
        'Balances',
        `${String(opening.type)} ${String(opening.balance)} → ${String(closing.type)} ${String(closing.balance)}`,
      ],
      ['Transactions', cell(run.transactions)],
      ['Open exceptions', cell(run.open_exceptions)],
      ...(run.already_imported ? ([['Note', 'already imported: nothing changed']] as [string, Cell][]) : []),
    ]),
    '',
    table(
      RECON_RESULT_NAMES.map((r) => ({ r, ...(results[r] ?? { count: 0, amount: '0.00' }) })),
      [
        ['RESULT', (x) => x.r],
        ['COUNT', (x) => x.count],
        ['AMOUNT', (x) => x.amount],
      ],
    ),
  ].join('\n');
}

const itemColumns: [string, (i: Row) => Cell][] = [
  ['ITEM', (i) => cell(i.item_id)],
  ['RESULT', (i) => cell(i.result)],
  ['STATE', (i) => cell(i.state)],
  [
    'ENTRY',
    (i) => (i.entry_index === null ? null : `${String(i.entry_index)}${i.tx_index ? `.${String(i.tx_index)}` : ''}`),
  ],
  ['DIR', (i) => cell(i.direction)],
  ['AMOUNT', (i) => cell(i.amount)],
  ['PAYRAIL', (i) => cell(i.payrail_amount)],
  [
    'MATCHED',
    (i) => cell(i.payout_id ?? i.collection_id ?? (i.wallet_credit_id ? `credit ${String(i.wallet_credit_id)}` : null)),
  ],
  ['REFERENCE', (i) => cell(i.end_to_end_id ?? i.utr ?? i.bank_reference)],
  ['NOTE', (i) => cell(i.closed_reason ? `closed: ${String(i.closed_reason)}` : i.note)],
];

/**
 * `payrail recon …`: bank statement reconciliation through the admin API (docs/operator/reconciliation.md).
 */
export function reconCommands(program: Command): void {
  const recon = program.command('recon').description('Reconcile bank statements (camt.053, MT940) with Payrail');

  recon
    .command('import')
    .description('Import a bank statement file (camt.053 XML or MT940 text) and reconcile it')
    .argument('<file>', 'the statement file')
    .action(async (file: string, _opts, cmd: Command) => {
      let bytes: Buffer;
      try {
        bytes = await readFile(file);
      } catch (err) {
        throw new CliError(`cannot read ${file}: ${(err as Error).message}`, Exit.failure);
      }
      const client = await adminClient(cmd);
      const answer = await client.request<{ runs: Row[] }>(
        'POST',
        '/admin/v1/reconciliation/statements',
        undefined,
        'recon import',
        { raw: bytes, contentType: statementContentType(bytes) },
      );
      output(cmd).result(answer, () => answer.runs.map(runSummary).join('\n\n'));
    });

  recon
    .command('runs')
    .description('List reconciliation runs, newest first')
    .option('--limit <n>', 'how many (at most 200)', positiveInt)
    .action(async (opts: { limit?: number }, cmd: Command) => {
      const client = await adminClient(cmd);
      const page = await client.get<{ data: Row[] }>('/admin/v1/reconciliation/runs', { limit: opts.limit });
      output(cmd).result(page, () =>
        table(page.data, [
          ['RUN', (r) => cell(r.run_id)],
          ['STATEMENT', (r) => cell((r.statement as Row).statement_id)],
          ['ACCOUNT', (r) => cell((r.statement as Row).account)],
          ['PERIOD', (r) => cell((r.statement as Row).period_to)],
          ...RECON_RESULT_NAMES.map((res): [string, (r: Row) => Cell] => [
            res.toUpperCase(),
            (r) => (r.results as Results)[res]?.count,
          ]),
          ['OPEN', (r) => cell(r.open_exceptions)],
        ]),
      );
    });

  recon
    .command('report')
    .description(
      'A run: counts and amounts per result and its exceptions (--all: every item; --csv: every item as CSV). ' +
        'Exit 7 while the run has open exceptions (not with --csv)',
    )
    .option('--run <runId>', 'the run (default: the newest)')
    .option('--csv', 'every item as CSV on standard output (spreadsheet formulas guarded)')
    .option('--all', 'list the matched items too')
    .action(async (opts: { run?: string; csv?: boolean; all?: boolean }, cmd: Command) => {
      const client = await adminClient(cmd);
      let runId = opts.run;
      if (!runId) {
        const newest = await client.get<{ data: Row[] }>('/admin/v1/reconciliation/runs', { limit: 1 });
        runId = newest.data[0]?.run_id as string | undefined;
        if (!runId)
          throw new UsageError('no reconciliation run yet: import a statement with `payrail recon import FILE`');
      }
      const path = `/admin/v1/reconciliation/runs/${encodeURIComponent(runId)}`;
      if (opts.csv) {
        const csv = await client.request<string>('GET', `${path}?format=csv`, undefined, 'recon report', {
          text: true,
        });
        process.stdout.write(csv);
        return;
      }
      const run = await client.request<Row>('GET', path, undefined, 'recon report');
      const items = (run.items as Row[]) ?? [];
      const shown = opts.all ? items : items.filter((i) => i.result !== 'matched');
      output(cmd).result(run, () =>
        [
          runSummary(run),
          '',
          shown.length === 0
            ? opts.all
              ? 'No items.'
              : 'No exceptions: every transaction matched.'
            : table(shown, itemColumns),
        ].join('\n'),
      );
      if (Number(run.open_exceptions) > 0) throw new ExitWith(Exit.checkFailed);
    });
}
