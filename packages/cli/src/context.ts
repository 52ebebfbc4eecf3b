import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { Payrail } from '@payrail/sdk';
import type { Command } from 'commander';
import { AdminClient } from './adminClient.ts';
import { UsageError } from './exitCodes.ts';
import { Output } from './output.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface GlobalOptions {
  url: string;
  apiKey?: string;
  secretKey?: string;
  webhookSecret?: string;
  scheme: 'v1' | 'v2';
  adminToken?: string;
  json?: boolean;
}

export function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}

export function output(cmd: Command): Output {
  return new Output(Boolean(globals(cmd).json));
}

/** The merchant client of the SDK, from flags or PAYRAIL_URL / PAYRAIL_API_KEY / PAYRAIL_SECRET_KEY. */
export function merchantClient(cmd: Command, { webhookSecret = false } = {}): Payrail {
  const g = globals(cmd);
  const missing = [
    !g.apiKey && '--api-key (or PAYRAIL_API_KEY)',
    !g.secretKey && '--secret-key (or PAYRAIL_SECRET_KEY)',
    webhookSecret && !g.webhookSecret && '--webhook-secret (or PAYRAIL_WEBHOOK_SECRET)',
  ].filter(Boolean);
  if (missing.length > 0) throw new UsageError(`merchant credentials missing: ${missing.join(', ')}`);
  if (g.scheme !== 'v1' && g.scheme !== 'v2') throw new UsageError('--scheme must be v1 or v2');
  return new Payrail({
    baseUrl: g.url,
    apiKey: g.apiKey as string,
    secretKey: g.secretKey as string,
    webhookSecret: g.webhookSecret,
    scheme: g.scheme,
    userAgent: 'payrail-cli',
  });
}

/** The admin token and where it came from (named in an authentication error). */
export interface AdminToken {
  token: string;
  /** `--admin-token`, `PAYRAIL_ADMIN_TOKEN`, or the token file's path. */
  source: string;
}

/** Where a local server keeps the token it generated: `<PAYRAIL_DATA_DIR or ./data>/admin-token`. */
export function adminTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  const path = join(env.PAYRAIL_DATA_DIR || './data', 'admin-token');
  return isAbsolute(path) || path.startsWith('.') ? path : `./${path}`;
}

/**
 * The operator's token, first found of: the --admin-token flag, the PAYRAIL_ADMIN_TOKEN variable, the file a
 * local server generated in its data directory. The first two name the server you mean; the file is only a
 * convenience for a server started from the same folder, so it comes last.
 */
export async function resolveAdminToken(cmd: Command): Promise<AdminToken> {
  const g = globals(cmd);
  if (g.adminToken) {
    const fromEnv = cmd.getOptionValueSourceWithGlobals('adminToken') === 'env';
    return { token: g.adminToken, source: fromEnv ? 'PAYRAIL_ADMIN_TOKEN' : '--admin-token' };
  }
  const file = adminTokenFile();
  const token = (await readFile(resolve(file), 'utf8').catch(() => '')).trim();
  if (!token) {
    throw new UsageError(`admin token missing: pass --admin-token or set PAYRAIL_ADMIN_TOKEN (no token in ${file})`);
  }
  return { token, source: file };
}

/** The operator client, with the token of resolveAdminToken. */
export async function adminClient(cmd: Command): Promise<AdminClient> {
  const { token, source } = await resolveAdminToken(cmd);
  return new AdminClient(globals(cmd).url, token, source);
}

/** One admin API call with the command's credentials: `payrail` operator commands are each one of these. */
export async function adminRequest(
  cmd: Command,
  method: string,
  path: string,
  body: unknown,
  operation: string,
): Promise<Record<string, unknown>> {
  return (await adminClient(cmd)).request(method, path, body, operation);
}
