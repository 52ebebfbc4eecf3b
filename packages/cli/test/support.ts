import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export { admin, createMerchant, http, type TestMerchant } from '../../server/test/support/merchantClient.ts';
export { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../../server/test/support/testServer.ts';

export const BIN = fileURLToPath(new URL('../bin/payrail.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (when it is). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The environment of a child CLI: nothing of ours inherited, only what the test gives. */
export function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('PAYRAIL_') && k !== 'DATABASE_URL' && k !== 'PORT' && k !== 'HOST') env[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** Runs `node packages/cli/bin/payrail.js …` as a child process. */
export function cli(
  args: string[],
  env: Record<string, string | undefined> = {},
  options: { cwd?: string; onStderr?: (text: string, child: ReturnType<typeof spawn>) => void } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      options.onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}
