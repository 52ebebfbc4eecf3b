import { istDayStart, parseRupeesOrZero } from '@payrail/protocol';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { ConfigError } from './configError.ts';
import { gstRateBp } from './domain/pricingPlan.ts';

export type Mode = 'sandbox' | 'live';

/** What a setting may depend on besides its own variable: some defaults and checks differ in live mode. */
export interface SettingContext {
  mode: Mode;
}

/**
 * The kind of value one environment variable holds: how its text is parsed and checked (a ConfigError naming the
 * variable when it does not fit), and what an unset variable means. The settings table (configSchema.ts) gives each
 * variable one of these, so that every whole number, flag or duration is read, and refused, the same way.
 */
export interface SettingType<T> {
  /** `raw`: the variable's text, undefined when it is not set. */
  parse(variable: string, raw: string | undefined, ctx: SettingContext): T;
  /** An unset variable's value as an operator would write it; null when there is none or it depends on the mode. */
  fallback: string | null;
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/** A whole number ≥ `min`. */
export function wholeNumber(fallback: number, min = 0): SettingType<number> {
  return {
    fallback: String(fallback),
    parse(variable, raw) {
      if (raw === undefined || raw === '') return fallback;
      if (!/^\d+$/.test(raw) || Number(raw) < min) throw new ConfigError(variable, `expected a whole number ≥ ${min}`);
      return Number(raw);
    },
  };
}

/** A whole number of days ≥ 1, or `off` (also `0`) for none: null. */
export function daysOrOff(fallback: number): SettingType<number | null> {
  return {
    fallback: String(fallback),
    parse(variable, raw) {
      if (raw === undefined || raw === '') return fallback;
      if (raw.toLowerCase() === 'off' || /^0+$/.test(raw)) return null;
      if (!/^\d+$/.test(raw)) throw new ConfigError(variable, 'expected a whole number of days, or off');
      return Number(raw);
    },
  };
}

/** true/1/yes or false/0/no, in any case; the value when unset may depend on the mode. */
export function flag(fallback: boolean | ((mode: Mode) => boolean)): SettingType<boolean> {
  return {
    fallback: typeof fallback === 'boolean' ? String(fallback) : null,
    parse(variable, text, { mode }) {
      const raw = text?.toLowerCase();
      if (raw === undefined || raw === '') return typeof fallback === 'boolean' ? fallback : fallback(mode);
      if (['true', '1', 'yes'].includes(raw)) return true;
      if (['false', '0', 'no'].includes(raw)) return false;
      throw new ConfigError(variable, 'expected true or false');
    },
  };
}

/** `on` or `off` (a switch an operator turns, as PAYRAIL_WORKER); true, false, 1, 0, yes and no too. */
export function onOff(fallback: boolean): SettingType<boolean> {
  const asFlag = flag(fallback);
  return {
    fallback: fallback ? 'on' : 'off',
    parse(variable, text, ctx) {
      const raw = text?.toLowerCase();
      if (raw === 'on') return true;
      if (raw === 'off') return false;
      try {
        return asFlag.parse(variable, text, ctx);
      } catch {
        throw new ConfigError(variable, 'expected on or off');
      }
    },
  };
}

/** One of `choices`, exactly as written. */
export function oneOf<const C extends string>(choices: readonly C[], fallback: C): SettingType<C> {
  return {
    fallback,
    parse(variable, raw) {
      const value = raw || fallback;
      if (!(choices as readonly string[]).includes(value))
        throw new ConfigError(variable, `expected ${choices.join(' or ')}`);
      return value as C;
    },
  };
}

/** Any text; unset or empty is the fallback. */
export function text(fallback: string): SettingType<string> {
  return { fallback, parse: (_variable, raw) => raw || fallback };
}

/** Any text, or undefined when unset or empty. */
export function optionalText(): SettingType<string | undefined> {
  return { fallback: null, parse: (_variable, raw) => nonEmpty(raw) };
}

/** A directory, made absolute against the working directory at start. */
export function directory(fallback: string): SettingType<string> {
  return { fallback, parse: (_variable, raw) => resolve(raw || fallback) };
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "5s,30s,2m,1h" (units ms, s, m, h, d) into milliseconds. */
export function parseDurations(variable: string, text: string): number[] {
  return text.split(',').map((part) => {
    const m = /^\s*(\d+)\s*(ms|s|m|h|d)\s*$/.exec(part);
    if (!m) throw new ConfigError(variable, `"${part}" is not a duration like 30s, 2m or 1h`);
    return Number(m[1]) * (UNITS[m[2] as string] as number);
  });
}

/** A comma-separated list of durations, in milliseconds. */
export function durations(fallback: string): SettingType<number[]> {
  return { fallback, parse: (variable, raw) => parseDurations(variable, raw || fallback) };
}

/** A duration in milliseconds (of a list, the first). */
export function duration(fallback: string): SettingType<number> {
  return { fallback, parse: (variable, raw) => parseDurations(variable, raw || fallback)[0] as number };
}

/** Bank codes, the four letters that start an IFSC: "hdfc, icic" → ["HDFC", "ICIC"]; unset: none. */
export function bankCodes(): SettingType<string[]> {
  return {
    fallback: null,
    parse(variable, raw) {
      const codes = (raw ?? '')
        .split(',')
        .map((s) => s.trim().toUpperCase())
        .filter(Boolean);
      const bad = codes.find((c) => !/^[A-Z]{4}$/.test(c));
      if (bad) throw new ConfigError(variable, `"${bad}" is not a bank code (the four letters that start an IFSC)`);
      return codes;
    },
  };
}

/** IST calendar days ("2026-12-25, 2027-01-26"), each a real date; unset: none. */
export function istDays(): SettingType<string[]> {
  return {
    fallback: null,
    parse(variable, raw) {
      const days = (raw ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = days.find((d) => istDayStart(d) === null);
      if (bad) throw new ConfigError(variable, `"${bad}" is not a date like 2026-12-25`);
      return [...new Set(days)].sort();
    },
  };
}

/** Decimal rupees (like "100000.00", or 0) as paise. */
export function rupees(fallback: string): SettingType<bigint> {
  return {
    fallback,
    parse(variable, text) {
      const raw = text || fallback;
      const paise = parseRupeesOrZero(raw);
      if (paise === null) throw new ConfigError(variable, 'expected rupees like 100000.00');
      return paise;
    },
  };
}

/** A percent with at most two fraction digits below 100 (PAYRAIL_GST_RATE), as hundredths of a percent. */
export function percentBp(fallback: string): SettingType<number> {
  return {
    fallback,
    parse(variable, text) {
      const bp = gstRateBp(text || fallback);
      if (bp === null) throw new ConfigError(variable, 'expected a percent below 100 like 18 or 12.5');
      return bp;
    },
  };
}

/** Proxy-addr's names for address ranges, accepted in PAYRAIL_TRUST_PROXY beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** PAYRAIL_TRUST_PROXY (SECURITY.md): unset = trust nothing; `true`, a hop count, or addresses/CIDRs. */
export function parseTrustProxy(
  raw: string | undefined,
  variable = 'PAYRAIL_TRUST_PROXY',
): boolean | number | string[] {
  const text = (raw ?? '').trim();
  if (text === '' || text.toLowerCase() === 'false') return false;
  if (text.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((s) => s.trim());
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (PROXY_RANGE_NAMES.has(entry)) continue;
    if (!family || !prefixOk || rest.length) {
      throw new ConfigError(
        variable,
        `"${entry}" is not true, a hop count, an address, a CIDR or one of loopback, linklocal, uniquelocal`,
      );
    }
  }
  return entries;
}

/** Which proxies' X-Forwarded-For names the client; unset: none (described by the setting's doc line). */
export function proxyTrust(): SettingType<boolean | number | string[]> {
  return { fallback: null, parse: (variable, raw) => parseTrustProxy(raw, variable) };
}

/** An absolute http(s) URL without query, fragment or credentials; trailing slashes removed. */
export function parsePublicUrl(variable: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(variable, `"${text}" is not an absolute URL like https://pay.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(variable, 'must be an http(s) URL');
  if (url.username || url.password || url.search || url.hash) {
    throw new ConfigError(variable, 'must not carry credentials, a query or a fragment');
  }
  return url.href.replace(/\/+$/, '');
}

/** An http(s) base URL (parsePublicUrl), or undefined when unset. */
export function baseUrl(): SettingType<string | undefined> {
  return { fallback: null, parse: (variable, raw) => (raw ? parsePublicUrl(variable, raw) : undefined) };
}

/** Live mode: a configured admin token or JWT secret must be long enough not to be guessed (SECURITY.md). */
const MIN_SECRET_CHARS = 32;

/** A secret of any length in the sandbox, of at least 32 characters in live mode; undefined when unset. */
export function liveSecret(): SettingType<string | undefined> {
  return {
    fallback: null,
    parse(variable, raw, { mode }) {
      const value = nonEmpty(raw);
      if (mode === 'live' && value !== undefined && value.length < MIN_SECRET_CHARS) {
        throw new ConfigError(variable, `must be at least ${MIN_SECRET_CHARS} characters in live mode`);
      }
      return value;
    },
  };
}

/** A signing secret in every mode: unset, or at least 32 characters (a guessable key would let anyone sign). */
export function signingSecret(): SettingType<string | undefined> {
  return {
    fallback: null,
    parse(variable, raw) {
      if (raw === undefined || raw === '') return undefined;
      if (raw.length < MIN_SECRET_CHARS)
        throw new ConfigError(variable, `expected at least ${MIN_SECRET_CHARS} characters`);
      return raw;
    },
  };
}

/** A key: base64 (standard or url-safe alphabet) of exactly 32 bytes; undefined when unset. */
export function key32(): SettingType<Buffer | undefined> {
  return {
    fallback: null,
    parse(variable, text) {
      const raw = nonEmpty(text?.trim());
      if (raw === undefined) return undefined;
      const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : Buffer.alloc(0);
      if (bytes.length !== 32) {
        throw new ConfigError(variable, 'expected base64 of exactly 32 bytes (e.g. `openssl rand -base64 32`)');
      }
      return bytes;
    },
  };
}
