import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether browser tests run: always in CI (a missing chromium then fails the test instead of skipping it), and
 * locally when Debian's chromium is installed (`apt-get install -y chromium`).
 */
export const BROWSER_TESTS = process.env.CI ? true : existsSync(CHROMIUM);

/** Screenshots of the main views (gitignored): test-artifacts/console/ at the repository root. */
export const ARTIFACTS = resolve(import.meta.dirname, '..', '..', '..', '..', 'test-artifacts', 'console');

/**
 * Headless Debian chromium with a fresh profile and no network of its own beyond what the page asks for
 * (default viewport: a desktop; the payment page's test asks for a 360-pixel phone).
 */
export async function launchBrowser(
  viewport = { width: 1280, height: 860 },
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  await mkdir(ARTIFACTS, { recursive: true });
  const profile = await mkdtemp(join(tmpdir(), 'payrail-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    viewport,
    timeout: 60_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-quic',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
