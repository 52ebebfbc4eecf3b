import type { Command } from 'commander';
import { merchantClient, output } from '../../context.ts';

/** `payrail token`: the merchant's bearer token, for calling the API by other means. */
export function tokenCommand(program: Command): void {
  program
    .command('token')
    .description('Print a bearer token for your credentials (for calling the API by other means)')
    .action(async (_opts, cmd: Command) => {
      const info = await merchantClient(cmd).token();
      output(cmd).result(info, () => info.token);
    });
}
