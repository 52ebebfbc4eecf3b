/**
 * The CLI's only read of the system time (eslint.config.js refuses `Date.now()` and `new Date()` elsewhere in
 * packages/cli/src): deadlines, progress, references and log stamps all read it here.
 */
export const now = (): number => Date.now();

/** The time now as a Date. */
export const nowDate = (): Date => new Date(now());
