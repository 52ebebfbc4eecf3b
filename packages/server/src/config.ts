import { readMode, SETTINGS } from './configSchema.ts';
import type { Config } from './configShape.ts';

export { ConfigError } from './configError.ts';
export type { Config } from './configShape.ts';
export { parseDurations, parsePublicUrl, parseTrustProxy, type Mode } from './settingTypes.ts';

/**
 * The listen address as a base URL: a wildcard host (0.0.0.0, ::) becomes the loopback address, which at least
 * works on the machine itself; an IPv6 address is bracketed.
 */
export function defaultPublicUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}

/** The settings from the environment; a ConfigError names the first variable (table order) that does not fit. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const ctx = { mode: readMode(env) };
  const config: Partial<Config> = {};
  for (const setting of SETTINGS) Object.assign(config, setting.read(env, ctx));
  // Complete: the table's type refuses rows that leave a field of Config unmade.
  return config as Config;
}

/**
 * Only the settings that say where the database is, for `payrail migrate`: a migration needs no connector settings,
 * secrets or master key, so an operator can run it with DATABASE_URL (or PAYRAIL_DATA_DIR) alone. A ConfigError names
 * either when it does not fit, as loadConfig would.
 */
export function loadDatabaseSettings(env: NodeJS.ProcessEnv = process.env): Pick<Config, 'databaseUrl' | 'dataDir'> {
  const ctx = { mode: readMode(env) };
  const settings: Partial<Config> = {};
  for (const setting of SETTINGS) {
    if (setting.keys.some((k) => k === 'databaseUrl' || k === 'dataDir'))
      Object.assign(settings, setting.read(env, ctx));
  }
  return settings as Pick<Config, 'databaseUrl' | 'dataDir'>;
}
