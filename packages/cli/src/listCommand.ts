import type { Command } from 'commander';
import { positiveInt } from './argParsers.ts';
import type { Page, Row } from './adminClient.ts';
import { adminClient, output } from './context.ts';
import { parseCsv } from './csv.ts';
import { UsageError } from './exitCodes.ts';
import { table, type Cell } from './output.ts';

/** The paging options every admin list has. */
interface Paging {
  merchant?: string;
  limit?: number;
  cursor?: string;
  all?: boolean;
  csv?: boolean;
}

type Query = Record<string, string | number | undefined>;

export interface ListSpec<O> {
  /** The command's name: `list` unless the group calls its list otherwise (`deliveries`). */
  name?: string;
  description: string;
  /** Declares the options that filter the list; help shows them before --merchant and the paging options. */
  filters?: (cmd: Command) => Command;
  /** Adds `--merchant <merchantId>`, sent as `merchant_id`. */
  byMerchant?: boolean;
  /** The admin API path of the list. */
  path: string;
  /** The query parameters of the filters; the merchant and paging parameters are added around them. */
  query: (opts: O) => Query;
  columns: [header: string, cell: (row: Row) => Cell][];
  /** Printed instead of a table without rows. */
  empty?: string;
  /**
   * Adds `--csv`: every matching row at once as the server's CSV (`format=csv`, without the paging options), on
   * standard output; `what` names a row, `limit` is the server's bound of one export, `narrow` the options to use
   * when an export reaches it.
   */
  csv?: { what: string; limit: number; narrow: string };
}

/**
 * Declares a paged list of the admin API: the filters, --merchant, --limit, --cursor and --all (every page);
 * prints a table and, when there is more, the option that shows the next page; with --json, the page as answered.
 */
export function listCommand<O>(parent: Command, spec: ListSpec<O>): Command {
  let command = parent.command(spec.name ?? 'list').description(spec.description);
  if (spec.filters) command = spec.filters(command);
  if (spec.byMerchant) command = command.option('--merchant <merchantId>', 'only this merchant');
  command = command
    .option('--limit <n>', 'page size (1-200, default 50)', positiveInt)
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--all', 'follow every page');
  const csv = spec.csv;
  if (csv) {
    command = command.option(
      '--csv',
      `every matching ${csv.what} as CSV on standard output (at most ${csv.limit.toLocaleString('en')})`,
    );
  }
  return command.action(async (opts: O & Paging, cmd: Command) => {
    // The merchant first and paging last, as every list always sent them: the query string is part of the
    // operation that an error names (`admin GET /admin/v1/payouts?merchant_id=…`).
    const filters: Query = { ...(spec.byMerchant ? { merchant_id: opts.merchant } : {}), ...spec.query(opts) };
    const client = await adminClient(cmd);
    if (csv && opts.csv) {
      if (opts.limit !== undefined || opts.cursor !== undefined || opts.all) {
        throw new UsageError(`--csv exports every matching ${csv.what}: leave out --limit, --cursor and --all`);
      }
      const params = new URLSearchParams({ format: 'csv' });
      for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== '') params.set(k, String(v));
      const text = await client.request<string>(
        'GET',
        `${spec.path}?${params.toString()}`,
        undefined,
        `${parent.name()} ${cmd.name()}`,
        { text: true },
      );
      process.stdout.write(text);
      if (parseCsv(text).length - 1 >= csv.limit) {
        process.stderr.write(`payrail: the export stops at ${csv.limit} ${csv.what}s: narrow it with ${csv.narrow}\n`);
      }
      return;
    }
    const page = await client.list(
      spec.path,
      { ...filters, limit: opts.limit, cursor: opts.cursor },
      Boolean(opts.all),
    );
    output(cmd).result(page, () =>
      spec.empty !== undefined && page.data.length === 0
        ? spec.empty
        : table(page.data, spec.columns) + listFooter(page),
    );
  });
}

function listFooter(page: Page<Row>): string {
  return page.has_more && page.next_cursor ? `\n(more: --cursor ${page.next_cursor}, or --all)` : '';
}
