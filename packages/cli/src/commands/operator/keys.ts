import type { Command } from 'commander';
import { output } from '../../context.ts';
import { UsageError } from '../../exitCodes.ts';
import { localServer, lockedAsUnavailable } from './localServer.ts';

/** `payrail keys …`: secrets at rest, handled by this process on the database itself. */
export function keysCommands(program: Command): void {
  program
    .command('keys')
    .description('Secrets at rest (docs/operator/secrets-at-rest.md)')
    .command('rotate-master')
    .description(
      'Seal every stored secret under PAYRAIL_MASTER_KEY (the new key), opening those under ' +
        'PAYRAIL_MASTER_KEY_PREVIOUS (the old one); servers configured with both keys keep serving meanwhile',
    )
    .option('--data-dir <dir>', 'embedded database directory (PAYRAIL_DATA_DIR, default ./data; server stopped)')
    .option('--database-url <url>', 'PostgreSQL instead of the embedded database (DATABASE_URL)')
    .action(async (opts, cmd: Command) => {
      const out = output(cmd);
      const { server, config } = await localServer(opts);
      if (!config.masterKey) throw new UsageError('PAYRAIL_MASTER_KEY (the new master key) is not set');
      let report;
      try {
        report = await server.rotateMasterKeyOf({
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          masterKey: config.masterKey,
          previousMasterKey: config.masterKeyPrevious,
        });
      } catch (err) {
        if (err instanceof server.SecretUnreadable) throw new UsageError(err.message);
        throw lockedAsUnavailable(server, err);
      }
      out.result(
        { key_id: report.keyId, merchants: report.merchants, settings: report.settings, key_ids: report.keyIds },
        () =>
          `Sealed ${report.merchants} merchant(s) and ${report.settings} setting(s) under master key ${report.keyId}; ` +
          `key ids in the database now: ${report.keyIds.join(', ') || 'none'}.\n` +
          (report.keyIds.every((id) => id === report.keyId)
            ? 'Remove PAYRAIL_MASTER_KEY_PREVIOUS from every server and restart them.'
            : 'Some values are still under another key (a server not restarted with the new key?): run it again.'),
      );
    });
}
