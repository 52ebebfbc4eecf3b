import { join } from 'node:path';
import type { Command } from 'commander';
import { output } from '../../context.ts';
import { localDatabase, localServer, lockedAsUnavailable } from './localServer.ts';

/** `payrail serve` and `payrail migrate`: the server and its database, run by this process. */
export function serverCommands(program: Command): void {
  program
    .command('serve')
    .description('Start the Payrail server (configuration from the environment: PORT, DATABASE_URL, PAYRAIL_*)')
    .option('--port <port>', 'listen port (PORT, default 8080)')
    .option('--host <host>', 'listen address (HOST, default 127.0.0.1)')
    .option('--data-dir <dir>', 'embedded database and local secrets (PAYRAIL_DATA_DIR, default ./data)')
    .option('--database-url <url>', 'PostgreSQL instead of the embedded database (DATABASE_URL)')
    .action(async (opts, cmd: Command) => {
      const out = output(cmd);
      const { server, config } = await localServer(opts);
      try {
        await server.runServer(
          config,
          ({ address, mode, engine, generatedAdminToken }) => {
            if (out.json) out.line({ event: 'listening', address, mode, engine }, () => '');
            if (generatedAdminToken && !out.json) {
              // On the terminal only, never through the logger.
              process.stderr.write(
                `Admin token (kept in ${join(config.dataDir, 'admin-token')}): ${generatedAdminToken}\n` +
                  'Set PAYRAIL_ADMIN_TOKEN to choose your own.\n',
              );
            }
          },
          // What the start is doing (the first one prepares the database for tens of seconds), then the address,
          // the console and the admin token's whereabouts; --json prints only the listening event.
          (line) => out.note(line),
        );
      } catch (err) {
        throw lockedAsUnavailable(server, err);
      }
    });

  program
    .command('migrate')
    .description(
      'Apply pending database migrations and exit (the server also migrates when it starts); reads only ' +
        'DATABASE_URL or PAYRAIL_DATA_DIR, no other setting or secret',
    )
    .option('--data-dir <dir>', 'embedded database directory (PAYRAIL_DATA_DIR, default ./data)')
    .option('--database-url <url>', 'PostgreSQL instead of the embedded database (DATABASE_URL)')
    .action(async (opts, cmd: Command) => {
      const out = output(cmd);
      const { server, config } = await localDatabase(opts);
      let report;
      try {
        report = await server.migrateDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      } catch (err) {
        throw lockedAsUnavailable(server, err);
      }
      const target = config.databaseUrl ? 'PostgreSQL' : config.dataDir;
      const { applied, total } = report;
      out.result({ applied, total, database: report.engine }, () =>
        applied.length === 0
          ? `Database ${target} is up to date (${total} migrations).`
          : `Applied ${applied.length} migration(s) to ${target}: ${applied.join(', ')}`,
      );
    });
}
