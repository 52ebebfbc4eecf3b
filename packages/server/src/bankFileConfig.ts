import { readFileSync } from 'node:fs';
import { ConfigError } from './configError.ts';
import { parseDurations } from './settingTypes.ts';

/** When files are cut: every so often, or at IST times of day. */
export type Cutoffs = { every: number } | { istMinutes: number[] };

export interface SftpSettings {
  host: string;
  port: number;
  username: string;
  /** The folder holding outbox/, inbox/, processed/ and failed/ on the server. */
  path: string;
  privateKey: Buffer;
  /** `SHA256:…` as `ssh-keygen -lf` prints it: any other host key is refused. */
  hostKeyFingerprint: string;
}

/** PAYRAIL_BANKFILE_* (docs/operator/bank-files.md). */
export interface BankFileSettings {
  /** The local folder, when files go through one (else SFTP). */
  dir: string | null;
  sftp: SftpSettings | null;
  cutoffs: Cutoffs;
  scanMs: number;
  debtor: { name: string; account: string; ifsc: string; initiatingParty: string };
}

const WHY = 'PAYRAIL_CONNECTOR or PAYRAIL_CONNECTOR_ROUTES names bankfile';

function required(env: NodeJS.ProcessEnv, name: string, why = WHY): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(name, `required when ${why}`);
  return value;
}

/** `every 30m`, or IST times `HH:MM,HH:MM`. */
export function parseCutoffs(text: string): Cutoffs {
  const every = /^every\s+(.+)$/i.exec(text.trim());
  if (every) {
    const ms = parseDurations('PAYRAIL_BANKFILE_CUTOFFS', every[1] as string);
    if (ms.length !== 1 || (ms[0] as number) < 100) {
      throw new ConfigError('PAYRAIL_BANKFILE_CUTOFFS', 'expected one duration of at least 100ms after "every"');
    }
    return { every: ms[0] as number };
  }
  const minutes = text.split(',').map((part) => {
    const m = /^\s*([01]\d|2[0-3]):([0-5]\d)\s*$/.exec(part);
    if (!m) {
      throw new ConfigError(
        'PAYRAIL_BANKFILE_CUTOFFS',
        `"${part}" is neither "every <duration>" nor an IST time HH:MM`,
      );
    }
    return Number(m[1]) * 60 + Number(m[2]);
  });
  return { istMinutes: [...new Set(minutes)].sort((a, b) => a - b) };
}

function sftpSettings(env: NodeJS.ProcessEnv, raw: string): SftpSettings {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PAYRAIL_BANKFILE_SFTP_URL', 'expected sftp://user@host:port/path');
  }
  if (url.protocol !== 'sftp:' || !url.hostname || !url.username) {
    throw new ConfigError('PAYRAIL_BANKFILE_SFTP_URL', 'expected sftp://user@host:port/path');
  }
  if (url.password) {
    throw new ConfigError(
      'PAYRAIL_BANKFILE_SFTP_URL',
      'no password in the URL: the key is PAYRAIL_BANKFILE_SFTP_KEY_FILE',
    );
  }
  const why = 'PAYRAIL_BANKFILE_SFTP_URL is set';
  const keyFile = required(env, 'PAYRAIL_BANKFILE_SFTP_KEY_FILE', why);
  let privateKey: Buffer;
  try {
    privateKey = readFileSync(keyFile);
  } catch (err) {
    throw new ConfigError('PAYRAIL_BANKFILE_SFTP_KEY_FILE', `cannot read ${keyFile}: ${(err as Error).message}`);
  }
  const hostKey = required(env, 'PAYRAIL_BANKFILE_SFTP_HOST_KEY', why);
  if (!/^SHA256:[A-Za-z0-9+/]{43}=?$/.test(hostKey)) {
    throw new ConfigError('PAYRAIL_BANKFILE_SFTP_HOST_KEY', 'expected a fingerprint like SHA256:… (ssh-keygen -lf)');
  }
  const path = decodeURIComponent(url.pathname) || '/';
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : 22,
    username: decodeURIComponent(url.username),
    path,
    privateKey,
    hostKeyFingerprint: hostKey.replace(/=$/, ''),
  };
}

/** Loaded only when bankfile is the default connector or a route: its variables are required then only. */
export function bankFileSettings(env: NodeJS.ProcessEnv): BankFileSettings {
  const sftpUrl = env.PAYRAIL_BANKFILE_SFTP_URL?.trim() || null;
  const dir = sftpUrl ? null : required(env, 'PAYRAIL_BANKFILE_DIR', `${WHY} and PAYRAIL_BANKFILE_SFTP_URL is unset`);
  const scan = parseDurations('PAYRAIL_BANKFILE_SCAN', env.PAYRAIL_BANKFILE_SCAN?.trim() || '30s');
  if (scan.length !== 1 || (scan[0] as number) < 50) {
    throw new ConfigError('PAYRAIL_BANKFILE_SCAN', 'expected one duration of at least 50ms, like 30s');
  }
  const ifsc = required(env, 'PAYRAIL_BANKFILE_DEBTOR_IFSC').toUpperCase();
  if (!/^[A-Z]{4}0[A-Z0-9]{6}$/.test(ifsc)) {
    throw new ConfigError(
      'PAYRAIL_BANKFILE_DEBTOR_IFSC',
      `"${ifsc}" is not an IFSC (4 letters, 0, 6 letters or digits)`,
    );
  }
  const account = required(env, 'PAYRAIL_BANKFILE_DEBTOR_ACCOUNT');
  if (!/^[A-Za-z0-9]{1,34}$/.test(account)) {
    throw new ConfigError('PAYRAIL_BANKFILE_DEBTOR_ACCOUNT', 'expected 1 to 34 letters or digits');
  }
  return {
    dir,
    sftp: sftpUrl ? sftpSettings(env, sftpUrl) : null,
    cutoffs: parseCutoffs(env.PAYRAIL_BANKFILE_CUTOFFS?.trim() || 'every 30m'),
    scanMs: scan[0] as number,
    debtor: {
      name: required(env, 'PAYRAIL_BANKFILE_DEBTOR_NAME').slice(0, 140),
      account,
      ifsc,
      initiatingParty: required(env, 'PAYRAIL_BANKFILE_INITIATING_PARTY').slice(0, 140),
    },
  };
}
