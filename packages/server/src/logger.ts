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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}
