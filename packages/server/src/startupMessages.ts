import { existsSync } from 'node:fs';
import { unlink, readFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import type { Config } from './config.ts';

/**
 * The lines `npm start` and `payrail serve` print for people (on stderr, beside the JSON log on stdout). The first
 * start of the embedded database runs initdb in WASM, which takes tens of seconds with nothing else to show: the
 * first line says so before it begins.
 */

/** `./data` for a directory under the current one, the absolute path otherwise. */
export function shownPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? path : `./${rel}`;
}

/** What the start is about to do with the database, before it does it. */
export function preparingLine(config: Config): string {
  if (config.databaseUrl) return 'Connecting to PostgreSQL and applying pending migrations…';
  const dir = shownPath(config.dataDir);
  // ensurePgliteCluster initialises a cluster only when PG_VERSION is missing.
  return existsSync(join(config.dataDir, 'pgdata', 'PG_VERSION'))
    ? `Opening the embedded database in ${dir}…`
    : `Preparing the embedded database in ${dir} (first start only: creating it and applying the migrations, 10–60 s on an idle machine, longer on a busy one)…`;
}

/** Where to go next: the API, the console, and where the admin token is. */
export function listeningLine(
  config: Config,
  started: { address: string; mode: string; engine: string; adminTokenFile?: string; adminAddress?: string },
): string {
  // PAYRAIL_ADMIN_LISTEN: the console is on the internal listener, not at the public URL.
  const base = (started.adminAddress ?? config.publicUrl ?? started.address).replace(/\/+$/, '');
  const token = started.adminTokenFile
    ? `in ${shownPath(started.adminTokenFile)} (or set PAYRAIL_ADMIN_TOKEN)`
    : 'PAYRAIL_ADMIN_TOKEN (as configured)';
  return (
    `Payrail listening on ${started.address}${started.adminAddress ? ` (admin API and console on ${started.adminAddress})` : ''} (${started.mode} mode, ${started.engine}) — ` +
    `console: ${base}/console — admin token: ${token}`
  );
}

/**
 * With PAYRAIL_ADMIN_TOKEN in force, a token file left by an earlier start without it holds a token this server
 * refuses, and the CLI, which reads the file when neither --admin-token nor PAYRAIL_ADMIN_TOKEN is given, would be
 * refused with it. The file is removed rather than rewritten with the configured token: the server keeps only the
 * hash of a configured token and never writes it anywhere (it may come from a secret store, and the data directory
 * is often backed up). A CLI without the token then stops with "admin token missing" instead of a refusal.
 * Returns the removed file's path, if one was removed.
 */
export async function removeStaleAdminTokenFile(config: Config): Promise<string | undefined> {
  if (!config.adminToken) return undefined;
  const path = join(config.dataDir, 'admin-token');
  const held = await readFile(path, 'utf8').catch(() => undefined);
  if (held === undefined || held.trim() === config.adminToken) return undefined;
  await unlink(path);
  return path;
}
