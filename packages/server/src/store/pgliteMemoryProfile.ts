import { setFlagsFromString } from 'node:v8';
import type { ResourceLimits } from 'node:worker_threads';

/** The PGlite worker's young generation (both semi-spaces), in MB: it only passes statements and rows along. */
const YOUNG_GENERATION_MB = 8;

let applied = false;

/**
 * The V8 settings of a server on embedded PGlite, which can be set at run time; the launcher
 * (packages/server/bin/payrail-server) sets the two that only a process's start can. One machine, the database
 * inside the process: resident memory counts for more than the last percent of throughput. Measured with the drain
 * of `npm run bench` (10,000 payouts; docs/internals/performance.md, "PGlite memory"), together with the launcher's:
 * the drain's peak 426–465 MB → 278–295 MB for about 10 % more server CPU in the drain, and the same initiation
 * throughput (0.84 × its baseline before and after):
 * - `--heap-growing-percent=30`: after a full collection, the main thread's heap may grow by 30 % of what survived
 *   before the next one, instead of V8's dynamic factor of up to four. Under load, most of what reaches the old
 *   generation is a request's garbage that outlived two scavenges; V8's default let it pile up to 130 MB over 35 MB
 *   live.
 * - `--wasm-tiering-budget` 100 times V8's: a function of PostgreSQL's WebAssembly is compiled again by the
 *   optimising compiler only once it has run 100 times as much. The hottest still are; the compiler's working memory
 *   for the many lukewarm ones (tens of MB, kept by the allocator afterwards) is saved.
 * - the worker's young generation at `YOUNG_GENERATION_MB`.
 * V8 flags are process-wide; they are set once, before the worker compiles PostgreSQL.
 */
export function applyPgliteMemoryProfile(): ResourceLimits {
  if (!applied) {
    setFlagsFromString('--heap-growing-percent=30');
    setFlagsFromString('--wasm-tiering-budget=180000000');
    applied = true;
  }
  return { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB };
}
