import { CliError, Exit, UsageError } from '../../exitCodes.ts';

/** The flags of the commands that run server code in this process: they override the environment it reads. */
export interface ServerFlags {
  port?: string;
  host?: string;
  dataDir?: string;
  databaseUrl?: string;
}

// Server code is loaded only by the commands that run it, so that merchant commands start fast.
const loadServer = () => import('@payrail/server');

export type ServerModule = Awaited<ReturnType<typeof loadServer>>;

/**
 * The server's code and its configuration, for `serve`, `migrate` and `keys rotate-master`: the flags are applied
 * to the environment first, so that the configuration is read exactly as the server reads it.
 */
export async function localServer(flags: ServerFlags) {
  return localServerWith(flags, (server) => server.loadConfig(process.env));
}

/** `localServer` reading only where the database is (`migrate`: no connector settings or secrets needed). */
export async function localDatabase(flags: ServerFlags) {
  return localServerWith(flags, (server) => server.loadDatabaseSettings(process.env));
}

async function localServerWith<C>(flags: ServerFlags, read: (server: ServerModule) => C) {
  if (flags.port !== undefined) process.env.PORT = flags.port;
  if (flags.host !== undefined) process.env.HOST = flags.host;
  if (flags.dataDir !== undefined) process.env.PAYRAIL_DATA_DIR = flags.dataDir;
  if (flags.databaseUrl !== undefined) process.env.DATABASE_URL = flags.databaseUrl;
  const server = await loadServer();
  try {
    return { server, config: read(server) };
  } catch (err) {
    if (err instanceof server.ConfigError) throw new UsageError(`invalid configuration: ${err.message}`);
    throw err;
  }
}

/** An embedded database held by a running server is "try again later" (exit 6), not a failure. */
export function lockedAsUnavailable(server: ServerModule, err: unknown): unknown {
  return err instanceof server.DataDirLockedError ? new CliError(err.message, Exit.unavailable) : err;
}
