import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SERVER_VERSION } from './serverVersion.ts';

/** What this process runs: the server package's version and the commit it was built from. */
export interface BuildInfo {
  version: string;
  /** The full commit hash, or `unknown` when neither the build nor a checkout says. */
  commit: string;
}

/** The repository root of a checkout: `packages/server/` (src/ or dist/ beside it) is two levels below it. */
const CHECKOUT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const COMMIT = /^[0-9a-f]{7,64}$/;

/**
 * The commit of the checkout this server runs from: only when the repository root two levels above the package
 * has a `.git` of its own, so that a copy installed inside somebody else's repository (node_modules) never reports
 * that repository's commit. Asked once, at start; a missing `git` or any error is "no answer".
 */
function checkoutCommit(): string | null {
  if (!existsSync(`${CHECKOUT_ROOT}.git`)) return null;
  try {
    const out = execFileSync('git', ['-C', CHECKOUT_ROOT, 'rev-parse', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2_000,
    }).trim();
    return COMMIT.test(out) ? out : null;
  } catch {
    return null;
  }
}

/**
 * The build's identity, read once at start: the commit is PAYRAIL_BUILD_COMMIT when the build set it (an image
 * built without `.git`), else `git rev-parse HEAD` of the checkout, else `unknown` (docs/operator/upgrading.md).
 */
export function resolveBuildInfo(configuredCommit: string | undefined): BuildInfo {
  return { version: SERVER_VERSION, commit: configuredCommit ?? checkoutCommit() ?? 'unknown' };
}

/** `0.1.0+3f9c2ab` (semver build metadata: the commit's first 7 characters), or the version alone. */
export function versionLabel(build: BuildInfo): string {
  return COMMIT.test(build.commit) ? `${build.version}+${build.commit.slice(0, 7)}` : build.version;
}
