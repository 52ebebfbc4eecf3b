import { ConfigError } from './configError.ts';
import type { SettingType } from './settingTypes.ts';

/** A second address to listen on: PAYRAIL_ADMIN_LISTEN (http/internalListener.ts). */
export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * `host:port` (`[::1]:9090` for an IPv6 address); unset: none. The port may be 0 (a free one, for tests), and
 * the host must be given: an operator who binds the admin API chooses where, rather than getting every interface.
 */
export function listenAddress(): SettingType<ListenAddress | undefined> {
  return {
    fallback: null,
    parse(variable, raw) {
      if (raw === undefined || raw === '') return undefined;
      const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(raw.trim());
      const port = Number(match?.[3]);
      if (!match || port > 65_535) {
        throw new ConfigError(variable, 'expected host:port, e.g. 10.0.0.5:9090 or [::1]:9090');
      }
      return { host: (match[1] ?? match[2]) as string, port };
    },
  };
}
