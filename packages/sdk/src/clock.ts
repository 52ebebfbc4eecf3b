/**
 * The SDK's only read of the system time (eslint.config.js refuses `Date.now()` and `new Date()` elsewhere in
 * packages/sdk/src). A client reads the time through `PayrailOptions.now`, which defaults to this.
 */
export const systemNow = (): number => Date.now();
