import pino, { type Logger } from 'pino';

/**
 * Structured logs. Request logs carry method, URL, status and timing only; these paths are redacted in case
 * anything ever logs a request or a merchant object, so that no credential, token or payload reaches a log.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.apiKey',
  '*.secretKey',
  '*.webhookSecret',
  '*.api_key',
  '*.secret_key',
  '*.webhook_secret',
  '*.token',
  '*.payload',
  '*.data',
];

/** A payment page's link is its only permission: request logs show `/pay/[redacted]…` instead of its key. */
export const maskPaymentPageToken = (url: string): string => url.replace(/^\/pay\/[^/?#]+/, '/pay/[redacted]');

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** Fastify's own request serializer, with the payment-page key masked. */
function requestSerializer(req: LoggedRequest) {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? maskPaymentPageToken(req.url) : req.url,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, serializers: { req: requestSerializer } },
    destination,
  );
}
