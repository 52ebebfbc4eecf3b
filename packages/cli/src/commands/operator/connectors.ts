import type { Command } from 'commander';
import type { Row } from '../../adminClient.ts';
import { cell, table } from '../../output.ts';
import { adminGet, showCommand } from '../../showCommand.ts';

/** One line per connector: modes, health and, for the upstream, the treasury (coverage below 1 is flagged). */
function connectorsView(connectors: Row[]): string {
  const lines = [
    table(connectors, [
      ['CONNECTOR', (c) => cell(c.name)],
      ['MODES', (c) => ((c.routes as string[]) ?? []).join(',') || '-'],
      ['HEALTH', (c) => (c.healthy ? 'answering' : `failing: ${String(c.last_failure ?? '')}`)],
      ['BALANCE', (c) => cell((c.treasury as Row | null)?.upstream_balance) ?? '-'],
      ['OWED', (c) => cell((c.treasury as Row | null)?.owed) ?? '-'],
      ['COVERAGE', (c) => cell((c.treasury as Row | null)?.coverage) ?? '-'],
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

/** `payrail connectors`: where payouts go and whether the upstream account covers them (admin API). */
export function connectorsCommand(program: Command): void {
  showCommand(program, {
    name: 'connectors',
    description: 'Show the payout connectors: modes routed to each, health, and the upstream treasury (operator)',
    fetch: adminGet('/admin/v1/connectors'),
    view: (body) => connectorsView((body.connectors as Row[] | undefined) ?? []),
  });
}
