import { PAYMENT_MODES, type PaymentMode, type Scheme } from '@payrail/protocol';
import { ConfigError } from './configError.ts';
import { parseDurations, parsePublicUrl, type Mode } from './settingTypes.ts';
import { bankFileSettings, type BankFileSettings } from './bankFileConfig.ts';

/** The connectors a server can be configured with (docs/operator/connectors.md). */
export const CONNECTOR_NAMES = ['sandbox', 'manual', 'upstream', 'bankfile'] as const;
export type ConnectorName = (typeof CONNECTOR_NAMES)[number];

/** Payrail's account at an upstream provider that speaks the merchant interface (the provider, or a Payrail). */
export interface UpstreamSettings {
  /** Base URL including any prefix (`https://provider.example/api`), without a trailing slash. */
  url: string;
  apiKey: string;
  secretKey: string;
  walletId: string;
  scheme: Scheme;
  /** When set, submissions carry a callback URL and the upstream webhook route verifies with it. */
  webhookSecret?: string;
  /** Poll delay while PROCESSING, while PENDING. */
  pollMs: { processing: number; pending: number };
  /** How long a payout waits through temporary refusals before it fails. */
  retryForMs: number;
  /** Time limit of one upstream request. */
  timeoutMs: number;
}

export interface ConnectorSettings {
  /** PAYRAIL_CONNECTOR: the connector of every payment mode not routed elsewhere. */
  defaultConnector: ConnectorName;
  /** PAYRAIL_CONNECTOR_ROUTES: payment mode → connector. */
  routes: Partial<Record<PaymentMode, ConnectorName>>;
  /** Set when `upstream` is the default or a route (else null). */
  upstream: UpstreamSettings | null;
  /** Set when `bankfile` is the default or a route (else null). */
  bankfile?: BankFileSettings | null;
}

const isConnector = (name: string): name is ConnectorName => (CONNECTOR_NAMES as readonly string[]).includes(name);

/** `IMPS=upstream,NEFT=bankfile` → routes; every mode and connector named must exist. */
export function parseConnectorRoutes(text: string | undefined): Partial<Record<PaymentMode, ConnectorName>> {
  const routes: Partial<Record<PaymentMode, ConnectorName>> = {};
  for (const part of (text ?? '').split(',').map((s) => s.trim())) {
    if (!part) continue;
    const [mode, connector, ...rest] = part.split('=').map((s) => s.trim());
    if (!mode || !connector || rest.length) {
      throw new ConfigError('PAYRAIL_CONNECTOR_ROUTES', `"${part}" is not MODE=connector (e.g. IMPS=upstream)`);
    }
    const upper = mode.toUpperCase();
    if (!(PAYMENT_MODES as readonly string[]).includes(upper)) {
      throw new ConfigError(
        'PAYRAIL_CONNECTOR_ROUTES',
        `"${mode}" is not a payment mode (${PAYMENT_MODES.join(', ')})`,
      );
    }
    if (!isConnector(connector)) {
      throw new ConfigError(
        'PAYRAIL_CONNECTOR_ROUTES',
        `"${connector}" is not a connector (${CONNECTOR_NAMES.join(', ')})`,
      );
    }
    routes[upper as PaymentMode] = connector;
  }
  return routes;
}

function required(env: NodeJS.ProcessEnv, name: string, why: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(name, `required when ${why}`);
  return value;
}

/**
 * The connector settings. A route or default naming a connector whose own settings are missing stops the start,
 * naming the variable, rather than failing the first payout routed there.
 */
export function loadConnectorSettings(env: NodeJS.ProcessEnv, mode: Mode): ConnectorSettings {
  const fallback: ConnectorName = mode === 'sandbox' ? 'sandbox' : 'manual';
  const raw = env.PAYRAIL_CONNECTOR?.trim() || fallback;
  if (!isConnector(raw)) {
    throw new ConfigError('PAYRAIL_CONNECTOR', `"${raw}" is not a connector (${CONNECTOR_NAMES.join(', ')})`);
  }
  if (raw === 'sandbox' && mode === 'live') {
    throw new ConfigError('PAYRAIL_CONNECTOR', 'the sandbox connector simulates outcomes: not in live mode');
  }
  const routes = parseConnectorRoutes(env.PAYRAIL_CONNECTOR_ROUTES);
  if (mode === 'live' && Object.values(routes).includes('sandbox')) {
    throw new ConfigError('PAYRAIL_CONNECTOR_ROUTES', 'the sandbox connector simulates outcomes: not in live mode');
  }
  const used = new Set<ConnectorName>([raw, ...Object.values(routes)]);
  return {
    defaultConnector: raw,
    routes,
    upstream: used.has('upstream') ? upstreamSettings(env) : null,
    bankfile: used.has('bankfile') ? bankFileSettings(env) : null,
  };
}

function upstreamSettings(env: NodeJS.ProcessEnv): UpstreamSettings {
  const why = 'PAYRAIL_CONNECTOR or PAYRAIL_CONNECTOR_ROUTES names upstream';
  const url = parsePublicUrl('PAYRAIL_UPSTREAM_URL', required(env, 'PAYRAIL_UPSTREAM_URL', why));
  const scheme = (env.PAYRAIL_UPSTREAM_SCHEME?.trim() || 'v2').toLowerCase();
  if (scheme !== 'v1' && scheme !== 'v2') throw new ConfigError('PAYRAIL_UPSTREAM_SCHEME', 'expected v1 or v2');
  const poll = parseDurations('PAYRAIL_UPSTREAM_POLL', env.PAYRAIL_UPSTREAM_POLL?.trim() || '15s,60s');
  if (poll.length !== 2 || poll.some((ms) => ms <= 0)) {
    throw new ConfigError('PAYRAIL_UPSTREAM_POLL', 'expected two durations: while PROCESSING, while PENDING (15s,60s)');
  }
  const retryFor = parseDurations('PAYRAIL_UPSTREAM_RETRY_FOR', env.PAYRAIL_UPSTREAM_RETRY_FOR?.trim() || '30m');
  if (retryFor.length !== 1) throw new ConfigError('PAYRAIL_UPSTREAM_RETRY_FOR', 'expected one duration like 30m');
  const timeout = parseDurations('PAYRAIL_UPSTREAM_TIMEOUT', env.PAYRAIL_UPSTREAM_TIMEOUT?.trim() || '15s');
  if (timeout.length !== 1 || (timeout[0] as number) <= 0) {
    throw new ConfigError('PAYRAIL_UPSTREAM_TIMEOUT', 'expected one duration like 15s');
  }
  const webhookSecret = env.PAYRAIL_UPSTREAM_WEBHOOK_SECRET?.trim() || undefined;
  return {
    url,
    apiKey: required(env, 'PAYRAIL_UPSTREAM_API_KEY', why),
    secretKey: required(env, 'PAYRAIL_UPSTREAM_SECRET_KEY', why),
    walletId: required(env, 'PAYRAIL_UPSTREAM_WALLET_ID', why),
    scheme,
    ...(webhookSecret ? { webhookSecret } : {}),
    pollMs: { processing: poll[0] as number, pending: poll[1] as number },
    retryForMs: retryFor[0] as number,
    timeoutMs: timeout[0] as number,
  };
}
