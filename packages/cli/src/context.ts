import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
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

/**
 * The operator client: the token from --admin-token or PAYRAIL_ADMIN_TOKEN, else the one a local server generated
 * in its data directory (PAYRAIL_DATA_DIR, default ./data).
 */
export async function adminClient(cmd: Command): Promise<AdminClient> {
  const g = globals(cmd);
  let token = g.adminToken;
  if (!token) {
    const path = join(resolve(process.env.PAYRAIL_DATA_DIR || './data'), 'admin-token');
    token = (await readFile(path, 'utf8').catch(() => '')).trim() || undefined;
  }
  if (!token) throw new UsageError('admin token missing: --admin-token (or PAYRAIL_ADMIN_TOKEN)');
  return new AdminClient(g.url, token);
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
