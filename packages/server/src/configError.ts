/**
 * A setting that cannot be used, named by its environment variable: `PAYRAIL_X: what is wrong`. The server's
 * start (main.ts) and the CLI print the message and exit with the configuration status instead of a stack trace.
 */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}
