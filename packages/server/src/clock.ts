/**
 * The time, in milliseconds since the epoch. The composition root (server.ts) builds one clock and hands it to
 * everything that reads the time: services, tokens, throttles and counters, the worker and its steps, the HTTP
 * layer. Tests pass a clock of their own (`createServer(config, { clock })`) and move it instead of sleeping.
 *
 * This file is the server's only direct read of the system time: eslint.config.js refuses `Date.now()` and
 * `new Date()` without an argument everywhere else in packages/server/src.
 */
export type Clock = () => number;

/**
 * The system's clock: what the composition root uses unless a test gives it another. Only server.ts names it in
 * packages/server/src (eslint.config.js): everything else takes the clock it is handed, with no default.
 */
export const systemClock: Clock = () => Date.now();

/** The clock's time as a Date. */
export const dateOf = (clock: Clock): Date => new Date(clock());
