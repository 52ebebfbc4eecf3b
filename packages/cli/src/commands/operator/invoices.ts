import { writeFile } from 'node:fs/promises';
import { INVOICE_FORMATS } from '@payrail/protocol';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Row } from '../../adminClient.ts';
import { adminClient, output } from '../../context.ts';
import { UsageError } from '../../exitCodes.ts';
import { listCommand } from '../../listCommand.ts';
import { cell, table, type Cell } from '../../output.ts';

function monthArg(value: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(value)) throw new InvalidArgumentError('expected an IST month like 2026-11');
  return value;
}

/** The tax of an invoice in one cell: CGST + SGST within a state, IGST across. */
const taxCell = (i: Row): Cell =>
  i.igst !== '0.00' || (i.cgst === '0.00' && i.sgst === '0.00')
    ? `IGST ${String(i.igst)}`
    : `CGST ${String(i.cgst)} + SGST ${String(i.sgst)}`;

const columns: [string, (i: Row) => Cell][] = [
  ['INVOICE', (i) => cell(i.invoice_id)],
  ['NUMBER', (i) => cell(i.number)],
  ['MONTH', (i) => cell(i.month)],
  ['MERCHANT', (i) => cell(i.merchant_id)],
  ['TAXABLE', (i) => cell(i.taxable)],
  ['TAX', taxCell],
  ['TOTAL', (i) => cell(i.total)],
];

/**
 * `payrail invoices …`: monthly GST tax invoices (docs/operator/charging-merchants.md, "Tax invoices") through the
 * admin API: run a month, list, download one as PDF, CSV or JSON.
 */
export function invoicesCommands(program: Command): void {
  const invoices = program
    .command('invoices')
    .description('Monthly GST tax invoices of the fees merchants were charged: run a month, list, download');

  invoices
    .command('run')
    .description(
      'Issue the tax invoices of an IST month that has begun (finance role): one per merchant with fees or credits ' +
        'not invoiced yet; a month run again answers the invoices it issued, unchanged',
    )
    .requiredOption('--month <YYYY-MM>', 'the IST calendar month to invoice', monthArg)
    .addHelpText(
      'after',
      `
Each invoice covers the merchant's fees charged before the month's end that no earlier run covered: one line
per product with count, fees and GST (CGST + SGST within the operator's state, else IGST), and a credit line for
a fee refunded after its invoice. Numbers run per financial year: INV/2026-27/000001. The server refuses with
exit 4 a month that has not begun, and until PAYRAIL_OPERATOR_LEGAL_NAME, _GSTIN, _ADDRESS and _STATE are set.

Examples:
  payrail invoices run --month 2026-11
  payrail invoices run --month 2026-11 --json > invoices-2026-11.json`,
    )
    .action(async (opts: { month: string }, cmd: Command) => {
      const client = await adminClient(cmd);
      const answer = await client.request('POST', '/admin/v1/invoices/run', { month: opts.month }, 'invoices run');
      const issued = (answer.invoices as Row[] | undefined) ?? [];
      output(cmd).result(answer, () => {
        const head = answer.already_run
          ? `${opts.month} was run before: ${issued.length} invoice${issued.length === 1 ? '' : 's'} issued then.`
          : `Issued ${issued.length} invoice${issued.length === 1 ? '' : 's'} for ${opts.month}.`;
        return issued.length === 0 ? head : `${table(issued, columns)}\n\n${head}`;
      });
    });

  listCommand(invoices, {
    description: 'List tax invoices, newest first',
    filters: (cmd) => cmd.option('--month <YYYY-MM>', 'only invoices of this month', monthArg),
    byMerchant: true,
    path: '/admin/v1/invoices',
    query: (opts: { month?: string }) => ({ month: opts.month }),
    columns,
    empty: 'No invoices.',
  }).addHelpText(
    'after',
    `
Examples:
  payrail invoices list --month 2026-11
  payrail invoices list --merchant MR01… --all --json`,
  );

  invoices
    .command('download')
    .description('Download one invoice as PDF, CSV or JSON, to a file (--out) or standard output')
    .argument('<invoiceId>')
    .addOption(new Option('--format <format>', 'the file to download').choices(INVOICE_FORMATS).default('pdf'))
    .option('--out <file>', 'write it here instead of standard output')
    .addHelpText(
      'after',
      `
A PDF is not written to a terminal: give --out, or redirect standard output.

Examples:
  payrail invoices download IV01… --format pdf --out INV-2026-27-000001.pdf
  payrail invoices download IV01… --format csv > invoice.csv
  payrail invoices download IV01… --format json`,
    )
    .action(async (id: string, opts: { format: (typeof INVOICE_FORMATS)[number]; out?: string }, cmd: Command) => {
      if (opts.format === 'pdf' && !opts.out && process.stdout.isTTY) {
        throw new UsageError('a PDF is not written to a terminal: give --out <file> or redirect standard output');
      }
      const client = await adminClient(cmd);
      const path = `/admin/v1/invoices/${encodeURIComponent(id)}?format=${opts.format}`;
      let bytes: Uint8Array;
      if (opts.format === 'json') {
        const invoice = await client.request('GET', path, undefined, 'invoices download');
        bytes = Buffer.from(`${JSON.stringify(invoice, null, 2)}\n`);
      } else {
        bytes = await client.request<Uint8Array>('GET', path, undefined, 'invoices download', { bytes: true });
      }
      if (!opts.out) {
        process.stdout.write(bytes);
        return;
      }
      await writeFile(opts.out, bytes);
      output(cmd).result({ invoice_id: id, format: opts.format, file: opts.out, bytes: bytes.length }, () => {
        return `Wrote ${opts.out as string} (${opts.format}, ${bytes.length} bytes).`;
      });
    });
}
