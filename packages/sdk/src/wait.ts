import { sleep } from './backoff.ts';
import { NetworkError, RateLimitError, WaitTimeoutError, type Operation } from './errors.ts';

interface WaitSpec<T extends { status: string }> {
  operation: Operation;
  read: (signal: AbortSignal) => Promise<T>;
  done: (value: T) => boolean;
  describe: (value: T) => string;
  options: {
    timeoutMs?: number;
    intervalMs?: number;
    maxIntervalMs?: number;
    signal?: AbortSignal;
    onChange?: (value: T) => void;
  };
}

/**
 * Polls `read` until `done`, with a growing interval (×1.5 up to `maxIntervalMs`). Reads go through the client's
 * status budget and retry policy; a rate-limit refusal that outlasts the read's own retries only slows the loop.
 */
export async function waitUntil<T extends { status: string }>(spec: WaitSpec<T>): Promise<T> {
  const { options } = spec;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxInterval = options.maxIntervalMs ?? 5_000;
  let interval = Math.min(options.intervalMs ?? 500, maxInterval);
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let last: T | undefined;

  const timedOut = () =>
    new WaitTimeoutError<T>({
      code: 'WAIT_TIMEOUT',
      message: `Gave up after ${timeoutMs} ms${last ? `: ${spec.describe(last)}` : ''}`,
      operation: spec.operation,
      last,
    });

  for (;;) {
    try {
      const value = await spec.read(signal);
      if (!last || last.status !== value.status) options.onChange?.(value);
      last = value;
      if (spec.done(value)) return value;
      await sleep(interval, signal);
      interval = Math.min(Math.ceil(interval * 1.5), maxInterval);
    } catch (err) {
      if (options.signal?.aborted) {
        if (err instanceof NetworkError) throw err;
        throw new NetworkError({
          code: 'ABORTED',
          message: 'The call was aborted',
          operation: spec.operation,
          cause: err,
        });
      }
      if (deadline.aborted) throw timedOut();
      if (err instanceof RateLimitError) {
        await sleep(err.retryAfterMs ?? maxInterval, signal).catch(() => undefined);
        if (deadline.aborted) throw timedOut();
        continue;
      }
      throw err;
    }
  }
}
