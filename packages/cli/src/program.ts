import { Command, Option } from 'commander';
import { bankCommands } from './commands/bank.ts';
import { balanceCommand } from './commands/merchant/balance.ts';
import { bulkCommands } from './commands/merchant/bulk.ts';
import { collectionCommands } from './commands/merchant/collection.ts';
import { payoutCommands } from './commands/merchant/payout.ts';
import { settlementCommands } from './commands/merchant/settlement.ts';
import { tokenCommand } from './commands/merchant/token.ts';
import { webhookCommands } from './commands/merchant/webhook.ts';
import { collectionsCommands } from './commands/operator/collections.ts';
import { connectorsCommand } from './commands/operator/connectors.ts';
import { exceptionsCommands } from './commands/operator/exceptions.ts';
import { invoicesCommands } from './commands/operator/invoices.ts';
import { keysCommands } from './commands/operator/keys.ts';
import { ledgerCommands } from './commands/operator/ledger.ts';
import { merchantCommands } from './commands/operator/merchant.ts';
import { operatorCommands } from './commands/operator/operator.ts';
import { payoutsCommands } from './commands/operator/payouts.ts';
import { reconCommands } from './commands/operator/recon.ts';
import { serverCommands } from './commands/operator/server.ts';
import { settlementsCommands } from './commands/operator/settlements.ts';
import { walletCommands } from './commands/operator/wallet.ts';
import { webhooksCommands } from './commands/operator/webhooks.ts';
import { DEFAULT_URL } from './context.ts';
import { EXIT_CODE_HELP } from './exitCodes.ts';

export const CLI_VERSION = '0.1.0';

/** The `payrail` command tree. Every command has --help; global options work before or after the command. */
export function createProgram(): Command {
  const program = new Command('payrail')
    .description('Payrail for operators (server, merchants, wallets, payouts, webhooks, ledger) and merchants (SDK)')
    .version(CLI_VERSION, '-V, --version')
    .exitOverride()
    .showSuggestionAfterError()
    .addOption(new Option('--url <url>', 'server address').env('PAYRAIL_URL').default(DEFAULT_URL))
    .addOption(new Option('--json', 'print results as JSON on stdout (errors as JSON on stderr), for scripts'))
    .addOption(new Option('--api-key <key>', 'merchant API key').env('PAYRAIL_API_KEY'))
    .addOption(new Option('--secret-key <key>', 'merchant secret key').env('PAYRAIL_SECRET_KEY'))
    .addOption(
      new Option('--webhook-secret <secret>', 'merchant webhook secret (whsec_…)').env('PAYRAIL_WEBHOOK_SECRET'),
    )
    .addOption(
      new Option('--scheme <scheme>', 'payload encryption of the merchant session')
        .choices(['v1', 'v2'])
        .env('PAYRAIL_SCHEME')
        .default('v2'),
    )
    .addOption(
      new Option(
        '--admin-token <token>',
        'operator token; else PAYRAIL_ADMIN_TOKEN, else the admin-token file in PAYRAIL_DATA_DIR (./data)',
      ).env('PAYRAIL_ADMIN_TOKEN'),
    )
    .addHelpText(
      'after',
      `
Operator commands use the admin API (PAYRAIL_ADMIN_TOKEN); merchant commands use the SDK with
PAYRAIL_API_KEY and PAYRAIL_SECRET_KEY. Prefer the environment to flags for secrets.

${EXIT_CODE_HELP}

Examples:
  payrail serve
  payrail merchant create "Acme Traders" --json
  payrail wallet credit WL01… 10000
  payrail payout send --sender-id inv-1001 --wallet WL01… --amount 100 \\
      --name "Asha Rao" --account 100000000001 --ifsc SBOX0000001 --wait
  payrail payout send --file payouts.csv --wallet WL01…
  payrail payouts list --status PENDING`,
    );
  // Help lists the commands in the order they are declared here.
  program.commandsGroup('Operator commands (admin API):');
  serverCommands(program);
  keysCommands(program);
  merchantCommands(program);
  walletCommands(program);
  payoutsCommands(program);
  collectionsCommands(program);
  webhooksCommands(program);
  ledgerCommands(program);
  operatorCommands(program);
  connectorsCommand(program);
  reconCommands(program);
  exceptionsCommands(program);
  invoicesCommands(program);
  settlementsCommands(program);
  program.commandsGroup('Merchant commands (through the SDK):');
  tokenCommand(program);
  payoutCommands(program);
  bulkCommands(program);
  balanceCommand(program);
  collectionCommands(program);
  settlementCommands(program);
  webhookCommands(program);
  program.commandsGroup('Other:');
  bankCommands(program);
  // Subcommands inherit exitOverride and help settings from the program only when created after them, so make
  // sure every level reports errors through main()'s handler.
  const all = (cmd: Command): Command[] => [cmd, ...cmd.commands.flatMap(all)];
  for (const cmd of all(program))
    cmd.exitOverride().showSuggestionAfterError().configureHelp({ showGlobalOptions: true });
  return program;
}
