import {
  AuthenticationError,
  BankRejectedError,
  BankUnavailableError,
  ConfigurationError,
  ConflictError,
  InsufficientFundsError,
  LimitExceededError,
  NetworkError,
  NoSettlementAccountError,
  NothingToSettleError,
  NotFoundError,
  PayrailError,
  RateLimitError,
  ServerError,
  ValidationError,
  WaitTimeoutError,
  WebhookVerificationError,
} from '@payrail/sdk';

/** Exit codes that scripts can rely on (documented in `payrail --help`). */
export const Exit = {
  ok: 0,
  /** Unexpected failure (a bug, an unreadable file). */
  failure: 1,
  /** Bad or missing arguments, options or credentials. */
  usage: 2,
  /** Credentials or admin token refused. */
  auth: 3,
  /** The server refused the request: invalid field, insufficient funds, limit, bank refusal, duplicate. */
  rejected: 4,
  /** No such merchant, wallet, payout, collection or delivery. */
  notFound: 5,
  /** Temporary: rate limited, bank down, server error or unreachable. Try again later. */
  unavailable: 6,
  /** A check failed: payout ended FAILED/REFUNDED, webhook not genuine, ledger mismatch. */
  checkFailed: 7,
  /** Waiting timed out. */
  timeout: 8,
  /** A batch finished with some rows not sent (see the result file), or a dry run found rows it would refuse. */
  partial: 9,
  /** Interrupted (SIGINT); a batch can be resumed by running the same command again. */
  interrupted: 130,
} as const;

export const EXIT_CODE_HELP = `Exit codes:
  0  success
  1  unexpected failure
  2  usage: bad or missing arguments, options or credentials
  3  authentication: credentials or admin token refused
  4  rejected: invalid field, insufficient funds, limit, bank refusal, duplicate
  5  not found
  6  temporarily unavailable: rate limit, bank down, server error, unreachable (try again)
  7  check failed: payout FAILED/REFUNDED, webhook not genuine, ledger mismatch
  8  timed out waiting
  9  batch finished with rows not sent (see the result file); --dry-run: some rows would be refused
  130 interrupted (a batch resumes when run again)`;

/** A failure found by the CLI itself, with the exit code it means. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A usage problem found by the CLI itself (missing credentials, conflicting options). */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'UsageError';
  }
}

/** A command that wants a particular exit code without an error message of its own. */
export class ExitWith extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
    this.name = 'ExitWith';
  }
}

export function exitCodeOf(err: unknown): number {
  if (err instanceof ExitWith) return err.code;
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof ConfigurationError) return Exit.usage;
  if (!(err instanceof PayrailError)) return Exit.failure;
  if (err instanceof AuthenticationError) return Exit.auth;
  if (err instanceof NotFoundError) return Exit.notFound;
  if (err instanceof WebhookVerificationError) return Exit.checkFailed;
  if (err instanceof WaitTimeoutError) return Exit.timeout;
  if (
    err instanceof RateLimitError ||
    err instanceof BankUnavailableError ||
    err instanceof ServerError ||
    err instanceof NetworkError
  ) {
    return Exit.unavailable;
  }
  if (
    err instanceof ValidationError ||
    err instanceof InsufficientFundsError ||
    err instanceof LimitExceededError ||
    err instanceof BankRejectedError ||
    err instanceof ConflictError ||
    err instanceof NoSettlementAccountError ||
    err instanceof NothingToSettleError
  ) {
    return Exit.rejected;
  }
  return Exit.failure;
}
