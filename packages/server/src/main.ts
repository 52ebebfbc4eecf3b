import { join } from 'node:path';
import { ConfigError, loadConfig } from './config.ts';
import { runServer } from './runServer.ts';
import { DataDirLockedError } from './store/dataDirLock.ts';

/** `npm start`: load configuration, run the server until SIGTERM/SIGINT. Exit 2: bad configuration; 3: data dir in use. */
async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`payrail: invalid configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  await runServer(config, ({ generatedAdminToken }) => {
    if (!generatedAdminToken) return;
    // Shown on the terminal, deliberately not through the logger, so it never lands in shipped logs.
    process.stdout.write(
      `\nAdmin token (kept in ${join(config.dataDir, 'admin-token')}): ${generatedAdminToken}\n` +
        `Set PAYRAIL_ADMIN_TOKEN to choose your own.\n\n`,
    );
  });
  process.exit(0);
}

void main().catch((err) => {
  if (err instanceof DataDirLockedError) {
    process.stderr.write(`payrail: ${err.message}\n`);
    process.exit(3);
  }
  process.stderr.write(`payrail: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
