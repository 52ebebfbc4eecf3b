import { join } from 'node:path';
import type { Config } from './config.ts';
import { createLogger } from './logger.ts';
import { createServer } from './server.ts';
import { startFailure } from './startFailure.ts';
import { listeningLine, preparingLine, removeStaleAdminTokenFile, shownPath } from './startupMessages.ts';

export interface Started {
  address: string;
  mode: Config['mode'];
  engine: string;
  /**
   * The generated admin token, set only on the start that created its file (the first one), so that the caller
   * shows it on the terminal once; later starts say where it is (adminTokenFile).
   */
  generatedAdminToken?: string;
  /** Where the generated admin token is kept; unset when PAYRAIL_ADMIN_TOKEN is configured. */
  adminTokenFile?: string;
  /** PAYRAIL_ADMIN_LISTEN: where the admin API and the console listen. */
  adminAddress?: string;
}

/**
 * Starts the server and the worker, reports once it listens, and resolves after a graceful stop on SIGTERM or
 * SIGINT (in-flight requests and background steps finish first; a stop that hangs exits 1 after 20 s).
 * Shared by `npm start` and `payrail serve`. `say` receives the lines for people (startupMessages.ts): what the
 * start is doing, then the address, the console and where the admin token is.
 */
export async function runServer(
  config: Config,
  onStarted: (started: Started) => void,
  say: (line: string) => void = () => undefined,
): Promise<void> {
  const logger = createLogger(config.logLevel);
  say(preparingLine(config));
  const server = await createServer(config, { logger }).catch((err: unknown) => {
    throw startFailure(err, config.databaseUrl);
  });
  // Only now: a start refused because another server holds the data directory must not touch that server's file.
  await removeStaleAdminTokenFile(config).then(
    (removed) => {
      if (removed) say(`Removed ${shownPath(removed)}: it held another token, and PAYRAIL_ADMIN_TOKEN is in force.`);
    },
    (err: Error) => say(`Could not remove the stale admin-token file (${err.message}); the CLI may read it.`),
  );
  const address = await server.listen();
  const started: Started = {
    address,
    mode: config.mode,
    engine: server.db.engine,
    ...(server.adminTokenGenerated ? { adminTokenFile: join(config.dataDir, 'admin-token') } : {}),
    ...(server.adminTokenCreated ? { generatedAdminToken: server.generatedAdminToken } : {}),
    ...(server.adminAddress() ? { adminAddress: server.adminAddress() as string } : {}),
  };
  say(listeningLine(config, started));
  onStarted(started);
  // The version, commit and both schema versions, so that a log says which build served it (upgrading.md).
  const { version, commit, schema, worker } = server.identity();
  logger.info(
    {
      address,
      ...(started.adminAddress ? { adminAddress: started.adminAddress } : {}),
      mode: config.mode,
      engine: server.db.engine,
      version,
      commit,
      schema,
      worker,
    },
    'payrail listening',
  );
  if (worker === 'off') {
    logger.warn(
      'PAYRAIL_WORKER=off: no payout steps, bank files, webhook deliveries or settlement runs on this instance',
    );
  }
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down: finishing in-flight requests');
      setTimeout(() => {
        logger.error('shutdown took too long; exiting');
        process.exit(1);
      }, 20_000).unref();
      void server.close().then(() => {
        logger.info('stopped');
        resolve();
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}
