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
  // Lines for people go to stderr, so that stdout carries only the JSON log.
  const say = (line: string) => process.stderr.write(`${line}\n`);
  await runServer(
    config,
    ({ generatedAdminToken }) => {
      // Set on the start that created the token file only: later starts print where it is, not the token.
      if (!generatedAdminToken) return;
      // Shown on the terminal, deliberately not through the logger, so it never lands in shipped logs.
      process.stderr.write(
        `\nAdmin token (kept in ${join(config.dataDir, 'admin-token')}, shown on this first start only): ` +
          `${generatedAdminToken}\n` +
          `Set PAYRAIL_ADMIN_TOKEN to choose your own.\n\n`,
      );
    },
    say,
  );
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
