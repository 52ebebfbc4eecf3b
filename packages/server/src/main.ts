import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { DataDirLockedError } from './store/dataDirLock.ts';
import { createServer } from './server.ts';

/** `npm start`: load configuration, start the server, stop gracefully on SIGTERM/SIGINT. */
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
  const logger = createLogger(config.logLevel);
  let server;
  try {
    server = await createServer(config, { logger });
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      process.stderr.write(`payrail: ${err.message}\n`);
      process.exit(3);
    }
    throw err;
  }
  const address = await server.listen();
  if (server.adminTokenGenerated) {
    // Shown on the terminal, deliberately not through the logger, so it never lands in shipped logs.
    process.stdout.write(
      `\nAdmin token (kept in ${config.dataDir}/admin-token): ${server.adminToken}\n` +
        `Set PAYRAIL_ADMIN_TOKEN to choose your own.\n\n`,
    );
  }
  logger.info({ address, mode: config.mode, engine: server.db.engine }, 'payrail listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, 20_000);
    timer.unref();
    await server.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void main().catch((err) => {
  process.stderr.write(`payrail: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
