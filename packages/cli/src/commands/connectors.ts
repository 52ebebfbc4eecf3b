import type { Command } from 'commander';
import { adminRequest, output } from '../context.ts';
import { table, type Cell } from '../output.ts';

type Row = Record<string, unknown>;
const s = (v: unknown): Cell => (v === null || v === undefined ? null : (v as Cell));

/** One line per connector: modes, health and, for the upstream, the treasury (coverage below 1 is flagged). */
function connectorsView(connectors: Row[]): string {
  const lines = [
    table(connectors, [
      ['CONNECTOR', (c) => s(c.name)],
      ['MODES', (c) => ((c.routes as string[]) ?? []).join(',') || '-'],
      ['HEALTH', (c) => (c.healthy ? 'answering' : `failing: ${String(c.last_failure ?? '')}`)],
      ['BALANCE', (c) => s((c.treasury as Row | null)?.upstream_balance) ?? '-'],
      ['OWED', (c) => s((c.treasury as Row | null)?.owed) ?? '-'],
      ['COVERAGE', (c) => s((c.treasury as Row | null)?.coverage) ?? '-'],
    ]),
  ];
  for (const c of connectors) {
    const coverage = (c.treasury as Row | null)?.coverage;
    if (typeof coverage === 'string' && Number(coverage) < 1) {
      lines.push(`warning: the ${String(c.name)} account does not cover what merchants hold (coverage ${coverage})`);
    }
  }
  return lines.join('\n');
}

export function connectorCommands(program: Command): void {
  program
    .command('connectors')
    .description('Show the payout connectors: modes routed to each, health, and the upstream treasury (operator)')
    .action(async (_opts, cmd: Command) => {
      const body = await adminRequest(cmd, 'GET', '/admin/v1/connectors', undefined, 'connectors');
      const connectors = (body.connectors as Row[] | undefined) ?? [];
      output(cmd).result(body, () => connectorsView(connectors));
    });
}
